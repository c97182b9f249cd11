import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {git, tempDir} from '../helpers/repo.js'
import {GitRecordStore} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'

/**
 * The git adapter's changedPaths compares trees in this process: it must list exactly what
 * `git diff --no-renames --name-only` lists, whatever the change (files, folders that became
 * files and back, modes, symbolic links, empty results), on random change sets.
 */
t.test('changedPaths lists what git diff --no-renames --name-only lists', async t => {
  const dir = tempDir(t)
  await git(dir, 'init', '-q', '-b', 'main')
  await git(dir, 'config', 'user.name', 'x')
  await git(dir, 'config', 'user.email', 'x@x.invalid')
  let seed = 7
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n)
  const names = ['a', 'b', 'c.txt', 'd/e', 'd/f/g', 'd/f/h', 'x y/z', 'd']
  const commits: string[] = []
  for (let round = 0; round < 40; round++) {
    for (let k = 0; k < 1 + rnd(4); k++) {
      const rel = names[rnd(names.length)]!
      const file = path.join(dir, rel)
      const op = rnd(5)
      fs.rmSync(file, {recursive: true, force: true})
      if (op === 0) continue // removed
      // a parent that is a file is in the way of a folder: the file goes
      for (let up = path.dirname(file); up !== dir; up = path.dirname(up)) if (fs.existsSync(up) && !fs.statSync(up).isDirectory()) fs.rmSync(up)
      fs.mkdirSync(path.dirname(file), {recursive: true})
      if (op === 1) fs.symlinkSync('target-' + rnd(3), file)
      else fs.writeFileSync(file, `content ${rnd(3)}\n`, {mode: op === 2 ? 0o755 : 0o644})
      if (op === 2) fs.chmodSync(file, 0o755)
    }
    await git(dir, 'add', '-A')
    await git(dir, 'commit', '-q', '--allow-empty', '-m', `round ${round}`)
    commits.push((await git(dir, 'rev-parse', 'HEAD')).trim())
  }
  const store = await GitRecordStore.open(dir)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  let compared = 0
  for (let i = 0; i < commits.length; i++) {
    for (const j of [i, Math.max(0, i - 1), rnd(commits.length)]) {
      const want = (await git(dir, 'diff', '--no-renames', '--name-only', '-z', commits[j]!, commits[i]!)).split('\0').filter(Boolean).sort()
      t.same((await ws.changedPaths(commits[j]!, commits[i]!)).sort(), want, `${j} -> ${i}`)
      compared++
    }
  }
  t.ok(compared >= 100)
})

t.test('changedPaths lists a change of 200,000 files in one folder (more than a call takes as arguments)', async t => {
  const dir = tempDir(t)
  await git(dir, 'init', '-q', '-b', 'main')
  const {execFileSync} = await import('node:child_process')
  const run = (args: string[], input?: string) => execFileSync('git', args, {cwd: dir, input, maxBuffer: 1 << 28}).toString().trim()
  const n = 200_000
  // (git mktree, not fast-import: fast-import adds files to a folder one by one, minutes for this many)
  const blob = run(['hash-object', '-w', '--stdin'], 'x\n')
  const files = run(['mktree'], Array.from({length: n}, (_, i) => `100644 blob ${blob}\t${i}.md\n`).join(''))
  const readme = run(['mktree'], `100644 blob ${blob}\tREADME\n`)
  const many = run(['mktree'], `100644 blob ${blob}\tREADME\n040000 tree ${run(['mktree'], `040000 tree ${files}\tf\n`)}\tskills\n`)
  const base = run(['commit-tree', readme, '-m', 'base'])
  const head = run(['commit-tree', many, '-p', base, '-m', 'many'])
  const store = await GitRecordStore.open(dir)
  t.teardown(() => store.close())
  const changed = await new GitWorkspace(store).changedPaths(base, head)
  t.equal(changed.length, n)
  t.ok(changed.every(p => p.startsWith('skills/f/')))
})
