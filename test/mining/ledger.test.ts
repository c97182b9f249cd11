import t from 'tap'
import {mineFromLedger} from '../../src/mining/index.js'
import {prepare, type RecordDraft} from '../../src/records/index.js'
import {MemoryRecordStore} from '../../src/store/memory.js'
import {MANIFEST, MANIFEST_ID, manifestDraft, runDrafts, type RunSpec} from '../helpers/mining.js'

const NOW = () => new Date('2026-01-01T00:00:00.000Z')
const lane = {lane: 'miner', now: NOW}
const recovery = (passed: boolean, task = 'A'): RunSpec => ({task, passed, steps: passed ? ['get_person', 'hand_out!EMPTY', 'order'] : ['get_person', 'hand_out!EMPTY']})

async function storeWith(specs: Record<string, RunSpec>, manifest: RecordDraft<'manifest'> = MANIFEST): Promise<MemoryRecordStore> {
  const store = new MemoryRecordStore()
  await store.append(manifest, lane)
  const drafts = Object.entries(specs).flatMap(([name, s]) => {
    const d = runDrafts(name, {...s, manifest: prepare(manifest).id, split: manifest.body.split})
    return [d.trace, d.verification]
  })
  await store.appendBatch(drafts, lane)
  return store
}
const four = {a1: recovery(true), a2: recovery(false), a3: recovery(true), a4: recovery(false), a5: {...recovery(false), valid: false}}

t.test('mining a ledger: evidence cites its runs and their verdicts, knowledge cites the evidence', async t => {
  const store = await storeWith(four)
  const ledger = await store.ledger()
  const mined = mineFromLedger(ledger)
  t.equal(mined.traces, 4)
  t.equal(mined.skipped, 1, 'the crashed episode (invalid verdict) is left out')
  const e = mined.evidence.find(d => d.body.pattern === 'recovery_strategy')!
  t.ok(e, 'the recovery is found')
  const runs = [...e.body.supporting, ...e.body.counterexamples]
  for (const id of runs) {
    t.ok(e.cites!.includes(id), 'cites the run')
    t.ok(ledger.citedBy(id).some(v => v.kind === 'verification' && e.cites!.includes(v.id)), 'and its verification')
  }
  const evidenceIds = new Set(mined.evidence.map(d => prepare(d).id))
  for (const k of mined.knowledge) t.ok(k.body.evidence.evidence_ids.every(id => evidenceIds.has(id) && k.cites!.includes(id)))
  await store.appendBatch(mined.evidence, lane)
  await store.appendBatch(mined.knowledge, lane)
  const again = mineFromLedger(await store.ledger())
  t.same(again.evidence.map(d => prepare(d).id), [...evidenceIds], 'the same evidence, the same ids')
  t.same(again.knowledge, [], 'nothing changed: no new knowledge')
})

t.test('new runs of another train manifest change the belief: the new claim supersedes the old', async t => {
  const store = await storeWith(four)
  const first = mineFromLedger(await store.ledger())
  await store.appendBatch(first.evidence, lane)
  await store.appendBatch(first.knowledge, lane)
  const more = manifestDraft('train', 2)
  await store.append(more, lane)
  const extra = Object.entries({b1: recovery(true, 'B'), b2: recovery(false, 'B')}).flatMap(([n, s]) => Object.values(runDrafts(n, {...s, manifest: prepare(more).id})))
  await store.appendBatch(extra, lane)
  const second = mineFromLedger(await store.ledger())
  const old = first.knowledge.find(k => k.body.rule?.kind === 'on_error')!
  const now = second.knowledge.find(k => k.body.slug === old.body.slug)!
  t.same(now.body.supersedes, [prepare(old).id])
  t.equal(now.body.statistics.support, old.body.statistics.support + 2)
  t.same(mineFromLedger(await store.ledger(), {manifest: MANIFEST_ID}).knowledge.find(k => k.body.slug === old.body.slug), undefined, 'one manifest alone: the same runs as before, nothing new')
})

t.test('only train is mined: a validation manifest is refused, its traces are never read', async t => {
  const val = manifestDraft('validation', 3)
  const store = await storeWith({v1: recovery(true), v2: recovery(false)}, val)
  const ledger = await store.ledger()
  t.throws(() => mineFromLedger(ledger, {manifest: prepare(val).id}), {code: 'E_SPLIT', data: {what: 'manifest', split: 'validation'}})
  t.throws(() => mineFromLedger(ledger, {manifest: 'mf-000000000000000000000000'}), {code: 'E_NOT_FOUND'})
  const all = mineFromLedger(ledger)
  t.equal(all.traces, 0, 'no train manifest, nothing mined')
  t.same(all.evidence, [])
})

t.test("another lane's records citing this lane's train manifest: a validation trace does not stop mining, and a flipped verdict is learned from by no one", async t => {
  const store = await storeWith(four)
  const honest = mineFromLedger(await store.ledger(), {manifest: MANIFEST_ID})
  const evil = {lane: 'evil', now: NOW}
  // a validation trace of the attacker's own, with one more cite: this lane's public train manifest
  const val = runDrafts('v-evil', {...recovery(false), split: 'validation', manifest: prepare(manifestDraft('validation', 9)).id})
  await store.append({...val.trace, cites: [...val.trace.cites!, MANIFEST_ID]}, evil)
  // a copy of two of this lane's verifications with the verdict flipped, citing this lane's traces
  const ledger0 = await store.ledger()
  const real = ledger0.records({kinds: ['verification']}).filter(v => v.body.valid)
  const flipped = real.slice(0, 2).map((v): RecordDraft<'verification'> => ({kind: 'verification', body: {...v.body, passed: !v.body.passed, outcome: v.body.passed ? 'negative' : 'positive', scores: {...v.body.scores, success: v.body.passed ? 0 : 1}}, cites: v.cites}))
  await store.appendBatch(flipped, evil)

  const ledger = await store.ledger()
  for (const o of [{manifest: MANIFEST_ID}, {}]) {
    const mined = mineFromLedger(ledger, o)
    t.equal(mined.foreign, 1, `${JSON.stringify(o)}: the validation trace is left out and counted, not an error`)
    t.equal(mined.contradicted, 2, `${JSON.stringify(o)}: the traces whose verdicts disagree are left out and counted`)
    t.equal(mined.traces, honest.traces - 2, `${JSON.stringify(o)}: the rest are mined`)
    const evilIds = new Set(ledger.select({kinds: ['verification']}).filter(v => v.lane === 'evil').map(v => v.id))
    t.notOk(mined.evidence.some(d => d.cites!.some(c => evilIds.has(c))), `${JSON.stringify(o)}: no evidence rests on a flipped verdict`)
  }
})
