import t from 'tap'
import {readdirSync} from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo} from '../helpers/repo.js'
import {startAppender, type Appender} from '../helpers/procs.js'

// 60 kills over three writers (each a stale lock of a shared lane or a kill mid pack write
// to recover from); EXP_CRASH_KILLS=200 (or more) makes it a soak test
const KILLS = Number(process.env.EXP_CRASH_KILLS ?? 60)

t.test(`a writer killed with SIGKILL at random moments (${KILLS} times) loses nothing it acknowledged`, async t => {
  const repo = await makeRepo(t)
  const acked = new Set<string>()
  let kills = 0
  let seed = 12345
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const round = async (slot: number) => {
    // two slots share one lane (so a killed writer's stale lock must be recovered) and a
    // third batches into packs (so a kill can land mid pack write)
    const p: Appender = startAppender(repo, slot === 2 ? 'batched' : 'crashy', 10_000, `s${slot}k${kills}`, slot === 2 ? 25 : 1)
    await p.ready
    // every fourth round lets the writer acknowledge one record first, so the run makes
    // progress however slow the machine is; the kill still lands at a random moment after
    if (rounds++ % 4 === 3) await firstAck(p)
    await new Promise(r => setTimeout(r, 10 + rand() * 250))
    p.child.kill('SIGKILL')
    await p.done
    kills++
    for (const id of p.acked) acked.add(id)
  }
  let rounds = 0
  const lanes = [0, 1, 2].map(async slot => {
    while (kills < KILLS) await round(slot)
  })
  await Promise.all(lanes)
  t.ok(kills >= KILLS, `${kills} kills`)
  const store = await GitRecordStore.open(repo)
  const report = await fsck(store)
  t.same(report.problems, [], 'fsck clean after every kill')
  const ledger = await store.ledger()
  const missing = [...acked].filter(id => !ledger.has(id))
  t.same(missing, [], `all ${acked.size} acknowledged records are present`)
  t.ok(acked.size >= kills / 4, `the writers made progress between kills (${acked.size} records acknowledged)`)
  // and a new writer still gets through any lock a killed one left behind (and sweeps temps)
  for (const lane of ['crashy', 'batched']) {
    const after = await store.append({kind: 'note', body: {text: `after the storm on ${lane}`}}, {lane, lockTimeoutMs: 10_000})
    t.equal(after.status, 'created', `a new writer gets through on ${lane}`)
  }
  await store.close()
  const leftovers = readdirSync(path.join(repo, '.git/refs/research/lanes')).filter(f => f.includes('.lock'))
  t.same(leftovers, [], 'no lock or temp file left behind')
})

/** Resolves once the writer acknowledged a record, or exited, or after 30 s. */
async function firstAck(p: Appender): Promise<void> {
  let exited = false
  void p.done.then(() => (exited = true))
  const until = Date.now() + 30_000
  while (p.acked.length === 0 && !exited && Date.now() < until) await new Promise(r => setTimeout(r, 5))
}
