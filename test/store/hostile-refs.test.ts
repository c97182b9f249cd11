import t, {type Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo, git, gitIn} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {exp} from '../helpers/cli.js'

/** Two good lanes (a, b) and a third lane c that the test then breaks. */
async function threeLanes(t: Test): Promise<{repo: string; ids: Record<string, string[]>}> {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo, {onWarning: () => undefined})
  const ids: Record<string, string[]> = {}
  for (const [lane, base] of [['a', 0], ['b', 10], ['c', 20]] as const) {
    ids[lane] = (await s.appendBatch([1, 2, 3].map(n => sampleDraft('note', base + n)), {lane})).map(r => r.id)
  }
  await s.ledger() // a cache exists, as in any clone that has been used
  await s.close()
  return {repo, ids}
}

type Breaker = (repo: string) => Promise<void>
const blobOf = async (repo: string) => (await gitIn(repo, ['hash-object', '-w', '--stdin'], 'not a commit\n'))
const breakers: [string, Breaker, RegExp, string][] = [
  ['a blob', async repo => fs.writeFileSync(path.join(repo, '.git/refs/research/lanes/c'), `${await blobOf(repo)}\n`), /refs\/research\/lanes\/c points at [0-9a-f]{12}, a blob, not a commit/, 'lane-ref-not-commit'],
  ['a tree', async repo => fs.writeFileSync(path.join(repo, '.git/refs/research/lanes/c'), `${(await git(repo, 'rev-parse', 'refs/research/lanes/c^{tree}')).trim()}\n`), /a tree, not a commit/, 'lane-ref-not-commit'],
  ['garbage text', async repo => fs.writeFileSync(path.join(repo, '.git/refs/research/lanes/c'), 'hello, I am not an object id\n'), /refs\/research\/lanes\/c cannot be read: it holds "hello, I am not an object id"/, 'lane-ref-invalid'],
  ['a commit whose object is gone', async repo => {
    const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/c')).trim()
    fs.rmSync(path.join(repo, '.git/objects', tip.slice(0, 2), tip.slice(2)), {force: true})
  }, /refs\/research\/lanes\/c cannot be read: .*missing/, 'lane-unreadable'],
]

for (const [what, breakIt, message, code] of breakers) {
  t.test(`a lane ref at ${what}: the other lanes read, the lane is a named problem, fsck reports it, appends elsewhere work`, async t => {
    const {repo, ids} = await threeLanes(t)
    await breakIt(repo)
    const readable = [...ids.a!, ...ids.b!]
    for (const native of [true, false]) {
      const warnings: string[] = []
      const s = await GitRecordStore.open(repo, {native, onWarning: w => warnings.push(w)})
      const ledger = await s.ledger()
      t.same(ledger.entries.map(e => e.id).sort(), readable.sort(), `native=${native}: lanes a and b read`)
      const p = ledger.problems.find(x => x.ref === 'refs/research/lanes/c')
      t.equal(p?.code, code, `native=${native}: the lane is a problem of its own class`)
      t.match(p?.message, message)
      t.ok(p?.hint, 'with a next step')
      t.match(warnings.join('\n'), message, 'and said once as a warning')
      const r = await s.append(sampleDraft('note', native ? 98 : 99), {lane: 'a'})
      t.equal(r.status, 'created', 'an append to another lane is not stopped by it')
      // Lamport continues from the lanes it can read (b ends at 6)
      t.equal(r.lamport, native ? 7 : 8)
      readable.push(r.id)
      const report = await fsck(s)
      t.ok(report.problems.some(x => x.code === code && x.ref === 'refs/research/lanes/c'), `native=${native}: fsck reports ${code}`)
      await s.close()
    }
    const l = await exp(['ledger', '--json'], {cwd: repo})
    t.equal(l.code, 5, 'ledger exits with the integrity status')
    t.equal((JSON.parse(l.stdout) as unknown[]).length, 8, 'after printing every record it could read')
    t.match(l.stderr, message)
    t.match(l.stderr, /1 lane\(s\) could not be read: refs\/research\/lanes\/c/)
    const lanes = await exp(['lanes'], {cwd: repo})
    t.equal(lanes.code, 5, 'lanes lists them all and exits 5')
    t.match(lanes.stdout, /\nc\s+public\s+\S+\s+UNREADABLE/)
    t.match(lanes.stdout, /\na\s+public\s+[0-9a-f]{12}\s+5\s/)
    const ins = await exp(['inspect', ids.b![0]!, '--json'], {cwd: repo})
    t.equal((JSON.parse(ins.stdout) as {record: {id: string}}).record.id, ids.b![0], 'inspect shows a record of a good lane')
    t.equal(ins.code, 5, 'and says the broken lane in its status')
    const f = await exp(['fsck'], {cwd: repo})
    t.equal(f.code, 5)
    t.match(f.stdout, message)
    // appending to the broken lane itself is refused (it would drop its history)
    if (code !== 'lane-ref-invalid') {
      const bad = await exp(['append', 'note', '-', '--lane', 'c'], {cwd: repo, input: 'text: onto a broken lane'})
      t.not(bad.code, 0)
      t.notMatch(bad.stderr, /unexpected/)
    }
  })
}

t.test('git gc --prune=now drops the objects of a lane whose ref was lost: reported, not fatal', async t => {
  const {repo, ids} = await threeLanes(t)
  // a ref moved back by hand, then gc prunes the commits only the old tip reached
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/c')).trim()
  await git(repo, 'update-ref', 'refs/research/lanes/c', 'HEAD')
  await git(repo, 'gc', '-q', '--prune=now')
  fs.mkdirSync(path.join(repo, '.git/refs/research/lanes'), {recursive: true})
  fs.writeFileSync(path.join(repo, '.git/refs/research/lanes/c'), `${tip}\n`)
  await t.rejects(git(repo, 'cat-file', '-e', tip), 'the old tip is gone')
  const r = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(r.code, 5)
  t.same((JSON.parse(r.stdout) as {id: string}[]).map(x => x.id).sort(), [...ids.a!, ...ids.b!].sort())
  t.match(r.stderr, /refs\/research\/lanes\/c cannot be read/)
  t.match(r.stderr, /hint|exp sync/)
})
