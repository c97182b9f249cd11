import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {findGarbage} from '../../src/store/git/gc.js'
import {makeRepo, git} from '../helpers/repo.js'
import {startAppender} from '../helpers/procs.js'
import {exp} from '../helpers/cli.js'
import {sampleDraft} from '../helpers/records.js'

/** Every temp file and pack keep under .git (what `git count-objects -v` calls garbage, and more). */
function leftovers(repo: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (/^tmp_|\.keep$|\.tmp$|\.lock(\.new)?$/.test(e.name)) out.push(path.relative(repo, p))
    }
  }
  walk(path.join(repo, '.git'))
  return out.filter(f => !f.endsWith('write.lock'))
}

t.test('appends in child processes survive git gc, pack-refs --all, repack -ad and exp gc running at the same time', async t => {
  const repo = await makeRepo(t)
  // single appends (loose objects, the lane folder re-created) and batches (packs with a keep)
  const procs = [startAppender(repo, 'single', 60, 's'), startAppender(repo, 'single2', 60, 't'), startAppender(repo, 'batched', 200, 'b', 20)]
  let running = true
  const done = Promise.all(procs.map(p => p.done)).finally(() => (running = false))
  const maintenance = ['gc -q', 'pack-refs --all', 'repack -ad -q', 'exp gc']
  let rounds = 0
  while (running) {
    const m = maintenance[rounds++ % maintenance.length]!
    if (m === 'exp gc') await exp(['gc'], {cwd: repo})
    else await git(repo, ...m.split(' ')).catch(() => undefined) // a maintenance step may lose a race; an append must not
  }
  const codes = await done
  t.same(codes, [0, 0, 0], 'every append succeeded')
  t.ok(rounds >= 4, `${rounds} maintenance steps ran alongside`)
  const s = await GitRecordStore.open(repo)
  const ledger = await s.ledger()
  const acked = procs.flatMap(p => p.acked)
  t.equal(acked.length, 320)
  t.same(acked.filter(id => !ledger.has(id)), [], 'every acknowledged record is there')
  t.same((await fsck(s)).problems, [], 'fsck is clean')
  await s.close()
  t.equal((await git(repo, 'fsck', '--strict', '--no-dangling')).trim(), '', 'and so is git fsck')
  t.same(leftovers(repo), [], 'no temp file, keep or lock left behind')
  t.match(await git(repo, 'count-objects', '-v'), /garbage: 0/)
})

t.test('reads in child processes while git repack -ad and git gc --prune=now move every object: each the whole ledger', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo, {onWarning: () => undefined})
  // a lane of more records than a read fetches through a spool (1,000): a cold read takes that path,
  // and the packed objects a reader reads in process (the tips) move under it
  for (let b = 0; b < 6; b++) await s.appendBatch(Array.from({length: 250}, (_, i) => sampleDraft('note', b * 250 + i)), {lane: b === 5 ? 'q' : 'p'})
  const ids = (await s.ledger()).entries.map(e => e.id).sort()
  await s.close()
  t.equal(ids.length, 1500)
  let running = true
  const maintenance = (async () => {
    let n = 0
    for (; running; n++) await git(repo, ...(n % 2 ? ['gc', '--prune=now', '-q'] : ['repack', '-ad', '-q'])).catch(() => undefined)
    return n
  })()
  const reads: {code: number; ids: string[]; stderr: string}[] = []
  for (let r = 0; r < 6; r++) {
    // cold (no cache: every object read from the packs being replaced) and warm in turn
    if (r % 2 === 0) fs.rmSync(path.join(repo, '.git', 'exp'), {recursive: true, force: true})
    const res = await exp(['ledger', '--json'], {cwd: repo})
    reads.push({code: res.code, stderr: res.stderr, ids: res.code === 0 ? (JSON.parse(res.stdout) as {id: string}[]).map(x => x.id).sort() : []})
  }
  running = false
  const steps = await maintenance
  t.ok(steps >= 2, `${steps} maintenance steps ran alongside the reads`)
  t.same(reads.map(r => r.code), [0, 0, 0, 0, 0, 0], `every read exited 0 (${reads.map(r => r.stderr.trim()).filter(Boolean).join(' | ')})`)
  for (const r of reads) t.same(r.ids, ids, 'the whole ledger, every record once')
})

t.test('what killed writers leave (temp objects, temp packs, keeps) is removed by exp gc, and only that', async t => {
  const repo = await makeRepo(t)
  for (let round = 0; round < 6; round++) {
    const p = startAppender(repo, 'killed', 5000, `k${round}`, round % 2 ? 400 : 1)
    await p.ready
    await new Promise(r => setTimeout(r, 150 + round * 40))
    p.child.kill('SIGKILL')
    await p.done
  }
  // and a leftover of each kind for certain, named as a dead exp process names them
  const dead = 2 ** 22 + 12345
  fs.writeFileSync(path.join(repo, '.git/objects/pack', `tmp_pack_${dead}_abcdef`), 'x')
  fs.writeFileSync(path.join(repo, '.git/objects/pack', 'pack-0000000000000000000000000000000000000000.keep'), `exp pid=${dead} host=${(await import('node:os')).hostname()}: until the lane ref moves\n`)
  fs.mkdirSync(path.join(repo, '.git/objects/ab'), {recursive: true})
  fs.writeFileSync(path.join(repo, '.git/objects/ab', `tmp_obj_${dead}_0011`), 'x')
  // a lane ref's lock and new value, left by a writer killed before its first rename
  const lanes = path.join(repo, '.git/refs/research/lanes')
  fs.mkdirSync(lanes, {recursive: true})
  fs.writeFileSync(path.join(lanes, 'gone.lock'), `exp pid=${dead} host=${(await import('node:os')).hostname()}\n`)
  fs.writeFileSync(path.join(lanes, 'gone~new.lock'), `${'0'.repeat(40)}\n`)
  // a keep someone made on purpose, and a temp file of this (live) process, stay
  fs.writeFileSync(path.join(repo, '.git/objects/pack', 'pack-1111111111111111111111111111111111111111.keep'), 'kept by hand\n')
  fs.writeFileSync(path.join(repo, '.git/objects/ab', `tmp_obj_${process.pid}_0022`), 'x')
  const found = findGarbage(path.join(repo, '.git')).map(f => path.basename(f))
  t.ok(found.includes(`tmp_pack_${dead}_abcdef`) && found.includes(`tmp_obj_${dead}_0011`) && found.includes('pack-0000000000000000000000000000000000000000.keep'))
  t.ok(found.includes('gone.lock') && found.includes('gone~new.lock'), 'a dead writer\'s ref lock and its new value, in one pass')
  t.notOk(found.includes('pack-1111111111111111111111111111111111111111.keep') || found.includes(`tmp_obj_${process.pid}_0022`), 'what is not garbage is not touched')
  const r = await exp(['gc', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.ok((JSON.parse(r.stdout) as {garbage: string[]}).garbage.length >= 3)
  t.same(leftovers(repo).sort(), ['.git/objects/ab/tmp_obj_' + process.pid + '_0022', '.git/objects/pack/pack-1111111111111111111111111111111111111111.keep'].sort())
  const s = await GitRecordStore.open(repo)
  t.same((await fsck(s)).problems, [])
  await s.close()
})

t.test("exp gc never follows a link and never enters an attempt's work tree: files named like a dead writer's temp file there, or outside the repository, stay", async t => {
  const repo = await makeRepo(t)
  const os = await import('node:os')
  const dead = 2 ** 22 + 12345
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-gc-outside-'))
  t.teardown(() => fs.rmSync(outside, {recursive: true, force: true}))
  // what an agent working in an attempt's work tree can put there: its own files, a link out
  const tree = path.join(repo, '.git', 'exp', 'worktrees', 'at-0123456789abcdef01234567')
  fs.mkdirSync(tree, {recursive: true})
  fs.writeFileSync(path.join(tree, `results.${dead}.tmp`), 'an agent\'s file\n')
  fs.writeFileSync(path.join(tree, 'run.lock'), `exp pid=${dead} host=${os.hostname()}\n`)
  fs.symlinkSync(outside, path.join(tree, 'home'))
  fs.writeFileSync(path.join(outside, `notes.${dead}.tmp`), 'keep\n')
  fs.writeFileSync(path.join(outside, 'held.lock'), `exp pid=${dead} host=${os.hostname()}\n`)
  // links straight under .git/exp: to the folder, and to a file named as garbage
  fs.symlinkSync(outside, path.join(repo, '.git', 'exp', 'away'))
  fs.symlinkSync(path.join(outside, `notes.${dead}.tmp`), path.join(repo, '.git', 'exp', `tips.json.${dead}.tmp`))
  // a lock that is a FIFO, and one that is huge: not exp's, not read to the end
  if (process.platform !== 'win32') (await import('node:child_process')).execFileSync('mkfifo', [path.join(repo, '.git', 'exp', 'fifo.lock')])
  fs.writeFileSync(path.join(repo, '.git', 'exp', 'big.lock'), `exp pid=${dead} host=${os.hostname()}\n${'x'.repeat(1 << 20)}`)
  // and exp's own leftover, which goes
  fs.writeFileSync(path.join(repo, '.git', 'exp', `state.json.${dead}.tmp`), '{}')
  const found = findGarbage(path.join(repo, '.git'))
  t.same(found.map(f => path.relative(repo, f)), [path.join('.git', 'exp', `state.json.${dead}.tmp`)], 'only exp\'s own leftover')
  const r = await exp(['gc'], {cwd: repo, timeoutMs: 30_000})
  t.equal(r.code, 0, r.stderr)
  t.same(fs.readdirSync(outside).sort(), ['held.lock', `notes.${dead}.tmp`], 'nothing outside the repository removed')
  t.same(fs.readdirSync(tree).sort(), ['home', `results.${dead}.tmp`, 'run.lock'], "the work tree's files stay")
  t.ok(fs.lstatSync(path.join(repo, '.git', 'exp', `tips.json.${dead}.tmp`)).isSymbolicLink(), 'a link is not a temp file of exp\'s')
  t.notOk(fs.existsSync(path.join(repo, '.git', 'exp', `state.json.${dead}.tmp`)), "exp's leftover removed")
})

t.test('exp gc removes the work trees of attempt evaluations whose process was killed, and keeps those of live ones', async t => {
  const repo = await makeRepo(t)
  const root = path.join(repo, '.git', 'exp', 'worktrees')
  // (pid 2^22 + 1 is above Linux's pid_max: no process has it)
  const dead = path.join(root, `eval-0123456789ab-dev-0-0-${2 ** 22 + 1}`)
  const live = path.join(root, `eval-0123456789ab-dev-1-0-${process.pid}`)
  const mine = path.join(root, 'at-0123456789abcdef01234567')
  for (const dir of [dead, live, mine]) await git(repo, 'worktree', 'add', '-q', '--detach', dir, 'HEAD')
  const r = await exp(['gc', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  const list = await git(repo, 'worktree', 'list', '--porcelain')
  t.notOk(list.includes(dead) || fs.existsSync(dead), 'the dead evaluation\'s work tree is gone, from git\'s list too')
  t.ok(list.includes(live) && list.includes(mine), 'a live evaluation\'s and an attempt\'s own work tree stay')
  t.ok((JSON.parse(r.stdout) as {garbage: string[]}).garbage.some(g => g.endsWith(path.basename(dead))))
})

// Found by an attack sweep: on a damaged repository git gc stops with "fatal: bad object …" or
// "… is corrupt", and exp gc passed that through as "this is unexpected … report it", with no
// word of what to do. It is the repository's damage: named, with `exp fsck` as the way to see it.
t.test('exp gc on a damaged repository: an integrity error with what git said and exp fsck as the next step', async t => {
  const damages: [string, (repo: string) => Promise<void>, RegExp][] = [
    ['a lane ref holding garbage', async repo => fs.writeFileSync(path.join(repo, '.git/refs/research/lanes/junk'), 'garbage\n'), /fatal: bad object refs\/research\/lanes\/junk/],
    ['a lane ref naming a missing object', async repo => fs.writeFileSync(path.join(repo, '.git/refs/research/lanes/gone'), `${'0123456789'.repeat(4)}\n`), /fatal: bad object refs\/research\/lanes\/gone/],
    [
      "a damaged loose object (the lane's tip)",
      async repo => {
        const tip = (await git(repo, 'for-each-ref', '--format=%(objectname)', 'refs/research/lanes/')).trim().split('\n')[0]!
        const file = path.join(repo, '.git/objects', tip.slice(0, 2), tip.slice(2))
        fs.chmodSync(file, 0o644)
        fs.writeFileSync(file, 'garbage')
      },
      /fatal: loose object [0-9a-f]{40} \(stored in .*\) is corrupt/,
    ],
    [
      'a damaged packed-refs',
      async repo => {
        await git(repo, 'pack-refs', '--all')
        fs.appendFileSync(path.join(repo, '.git/packed-refs'), 'garbage line\n')
      },
      /fatal: unexpected line in .*packed-refs: garbage line/,
    ],
  ]
  for (const [what, damage, said] of damages) {
    const repo = await makeRepo(t)
    t.equal((await exp(['append', 'note', '-', '--lane', 'alice'], {cwd: repo, input: 'text: hello'})).code, 0)
    await damage(repo)
    const r = await exp(['gc'], {cwd: repo})
    t.equal(r.code, 5, `${what}: exits with the integrity status: ${r.stderr}`)
    t.match(r.stderr, /^error: corrupted or unreadable repository: git (gc|pack-refs) stopped \(128\): /m, what)
    t.match(r.stderr, said, `${what}: what git said`)
    t.match(r.stderr, /^hint: run `exp fsck` to see the damage/m, what)
    t.notMatch(r.stderr, /this is unexpected|report it|failed to run/, what)
    const j = await exp(['gc', '--json'], {cwd: repo})
    t.equal(j.code, 5)
    t.match(JSON.parse(j.stdout), {error: {code: 'E_CORRUPT', message: said, hint: /exp fsck/}}, `${what}: --json too`)
    // and exp fsck, the next step, names it
    t.not((await exp(['fsck'], {cwd: repo})).code, 0, `${what}: exp fsck reports the damage`)
  }
})
