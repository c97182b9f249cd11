import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {makeRepo, git, handCommit} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'

/** Files under `dir` this process holds open (Linux: /proc/self/fd). */
function openUnder(dir: string): string[] {
  const out: string[] = []
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`)
      if (target.startsWith(dir)) out.push(target)
    } catch {
      // closed meanwhile (the fd of readdir itself)
    }
  }
  return out
}

t.test('a full read keeps its cache data files open only while it runs, also when the lane fails after records were cached', {skip: process.platform !== 'linux' && 'needs /proc/self/fd'}, async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo, {native: true, onWarning: () => undefined})
  t.teardown(() => s.close())
  // more records than one chunk of a read (256), each its own commit and loose objects
  for (let i = 0; i < 300; i++) await s.append(sampleDraft('note', i), {lane: 'c'})
  await s.append(sampleDraft('note', 9999), {lane: 'good'})
  const cacheDir = path.join(repo, '.git/exp')
  // a good read: the records are cached and every data file is closed at its end
  const first = await s.ledger()
  t.equal(first.entries.length, 301)
  t.same(openUnder(cacheDir).filter(f => f.endsWith('.dat')), [], 'no data file left open after a read')
  // lane c is not plain (a commit that is not a record: it is read commit by commit, with
  // each commit's diff, oldest first) and the tree of its 290th commit is gone: git log
  // lists the older commits with their diffs (their records are read and cached) and then
  // fails, so the lane's read throws after its writer wrote
  await handCommit(repo, 'c', 'README.md', 'not a record\n', 'docs: not a record')
  const tree = (await git(repo, 'rev-parse', 'refs/research/lanes/c~11^{tree}')).trim()
  fs.rmSync(path.join(repo, '.git/objects', tree.slice(0, 2), tree.slice(2)))
  fs.rmSync(cacheDir, {recursive: true, force: true})
  const s2 = await GitRecordStore.open(repo, {native: true, onWarning: () => undefined})
  t.teardown(() => s2.close())
  const second = await s2.ledger()
  t.equal(second.problems.find(p => p.ref === 'refs/research/lanes/c')?.code, 'lane-unreadable')
  t.equal(second.entries.length, 1, 'the good lane reads')
  t.same(openUnder(cacheDir).filter(f => f.endsWith('.dat')), [], 'the data files the failed read wrote were closed')
  // and removed: nothing points into them, and a lane that failed every read left another
  // generation each time (an attack sweep: 2 GB of files a read, for a lane of 2 GB)
  t.same(fs.readdirSync(path.join(cacheDir, 'cache-v4')).filter(f => f.includes('lanes~c')), [], 'no file of the failed read is left')
  await s2.ledger()
  t.same(fs.readdirSync(path.join(cacheDir, 'cache-v4')).filter(f => f.includes('lanes~c')), [], 'nor of a second one')
})

t.test('a lane read again in full leaves no file of its earlier cache, and takes none of another lane\'s (a and a.1)', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo, {onWarning: () => undefined})
  t.teardown(() => s.close())
  for (const lane of ['a', 'a.1']) for (let i = 0; i < 3; i++) await s.append(sampleDraft('note', i + (lane === 'a' ? 0 : 10)), {lane})
  await s.ledger()
  const dir = path.join(repo, '.git/exp/cache-v4')
  const of = (lane: string) => fs.readdirSync(dir).filter(f => new RegExp(`^refs~research~lanes~${lane.replace('.', '\\.')}\\.\\d{10,}\\.`).test(f))
  const before = {a: of('a'), a1: of('a.1')}
  t.ok(before.a.length && before.a1.length)
  // lane a moved to a commit that does not contain its cached tip: read in full, a new generation
  await git(repo, 'update-ref', 'refs/research/lanes/a', 'refs/research/lanes/a~1')
  const s2 = await GitRecordStore.open(repo, {onWarning: () => undefined})
  t.teardown(() => s2.close())
  await s2.append(sampleDraft('note', 99), {lane: 'a'})
  await s2.ledger()
  const after = {a: of('a'), a1: of('a.1')}
  t.ok(after.a.length, 'lane a has its new cache')
  t.same(after.a.filter(f => before.a.includes(f)), [], 'and none of its earlier one')
  t.same(after.a1, before.a1, 'lane a.1 keeps its files')
})
