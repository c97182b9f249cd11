import t from 'tap'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo, git} from '../helpers/repo.js'
import {startAppender} from '../helpers/procs.js'

t.test('16 processes appending 50 records each to one lane make one linear chain of 800', async t => {
  const repo = await makeRepo(t)
  const procs = Array.from({length: 16}, (_, i) => startAppender(repo, 'shared', 50, `p${i}`))
  const codes = await Promise.all(procs.map(p => p.done))
  t.same(codes, Array(16).fill(0), 'every writer finished')
  const store = await GitRecordStore.open(repo)
  const ledger = await store.ledger()
  t.equal(ledger.size, 800, 'exactly 800 records')
  const acked = procs.flatMap(p => p.acked)
  t.equal(acked.length, 800)
  t.ok(acked.every(id => ledger.has(id)), 'every acknowledged id is in the ledger')
  t.equal((await git(repo, 'rev-list', '--count', 'refs/research/lanes/shared')).trim(), '800')
  t.equal((await git(repo, 'rev-list', '--min-parents=2', 'refs/research/lanes/shared')).trim(), '', 'no merges: a linear chain')
  t.same(ledger.entries.map(e => e.lamport), Array.from({length: 800}, (_, i) => i + 1), 'lamport 1..800 along the lane')
  const report = await fsck(store)
  t.same(report.problems, [], 'fsck clean')
  await store.close()
})

t.test('8 processes on 8 lanes in parallel: all records present', async t => {
  const repo = await makeRepo(t)
  const procs = Array.from({length: 8}, (_, i) => startAppender(repo, `lane${i}`, 40, `l${i}`, i % 2 ? 10 : 1))
  t.same(await Promise.all(procs.map(p => p.done)), Array(8).fill(0))
  const store = await GitRecordStore.open(repo)
  const ledger = await store.ledger()
  t.equal(ledger.size, 320)
  t.equal((await store.lanes()).length, 8)
  t.ok(procs.every(p => p.acked.every(id => ledger.has(id))))
  t.same((await fsck(store)).problems, [])
  t.equal((await git(repo, 'fsck', '--strict', '--no-dangling')).trim(), '', 'native git fsck agrees')
  await store.close()
})
