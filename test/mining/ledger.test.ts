import t from 'tap'
import {mineFromLedger} from '../../src/mining/index.js'
import {prepare, type RecordDraft} from '../../src/records/index.js'
import type {VerificationBody} from '../../src/records/types.js'
import {MemoryRecordStore} from '../../src/store/memory.js'
import {GitRecordStore} from '../../src/store/index.js'
import {makeRepo} from '../helpers/repo.js'
import {rawCommit} from '../helpers/raw-record.js'
import {MANIFEST, MANIFEST_ID, fixtureVerdicts, manifestDraft, numbered, runDrafts, type RunSpec} from '../helpers/mining.js'

const NOW = () => new Date('2026-01-01T00:00:00.000Z')
const lane = {lane: 'miner', now: NOW}
const recovery = (passed: boolean, task = 'A'): RunSpec => ({task, passed, steps: passed ? ['get_person', 'hand_out!EMPTY', 'order'] : ['get_person', 'hand_out!EMPTY']})

async function storeWith(specs: Record<string, RunSpec>, manifest: RecordDraft<'manifest'> = MANIFEST): Promise<MemoryRecordStore> {
  const store = new MemoryRecordStore()
  await store.append(manifest, lane)
  const drafts = Object.entries(numbered(specs)).flatMap(([name, s]) => {
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
  const mined = mineFromLedger(ledger, {verdicts: fixtureVerdicts})
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
  const again = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts})
  t.same(again.evidence.map(d => prepare(d).id), [...evidenceIds], 'the same evidence, the same ids')
  t.same(again.knowledge, [], 'nothing changed: no new knowledge')
})

t.test('new runs of another train manifest change the belief: the new claim supersedes the old', async t => {
  const store = await storeWith(four)
  const first = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts})
  await store.appendBatch(first.evidence, lane)
  await store.appendBatch(first.knowledge, lane)
  const more = manifestDraft('train', 2)
  await store.append(more, lane)
  const extra = Object.entries(numbered({b1: recovery(true, 'B'), b2: recovery(false, 'B')})).flatMap(([n, s]) => Object.values(runDrafts(n, {...s, manifest: prepare(more).id})))
  await store.appendBatch(extra, lane)
  const second = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts})
  const old = first.knowledge.find(k => k.body.rule?.kind === 'on_error')!
  const now = second.knowledge.find(k => k.body.slug === old.body.slug)!
  t.same(now.body.supersedes, [prepare(old).id])
  t.equal(now.body.statistics.support, old.body.statistics.support + 2)
  t.same(mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, manifest: MANIFEST_ID}).knowledge.find(k => k.body.slug === old.body.slug), undefined, 'one manifest alone: the same runs as before, nothing new')
})

t.test('only train is mined: a validation manifest is refused, its traces are never read', async t => {
  const val = manifestDraft('validation', 3)
  const store = await storeWith({v1: recovery(true), v2: recovery(false)}, val)
  const ledger = await store.ledger()
  t.throws(() => mineFromLedger(ledger, {verdicts: fixtureVerdicts, manifest: prepare(val).id}), {code: 'E_SPLIT', data: {what: 'manifest', split: 'validation'}})
  t.throws(() => mineFromLedger(ledger, {verdicts: fixtureVerdicts, manifest: 'mf-000000000000000000000000'}), {code: 'E_NOT_FOUND'})
  const all = mineFromLedger(ledger, {verdicts: fixtureVerdicts})
  t.equal(all.traces, 0, 'no train manifest, nothing mined')
  t.same(all.evidence, [])
})

const flip = (b: VerificationBody): VerificationBody => ({...b, passed: !b.passed, outcome: b.passed ? 'negative' : 'positive', scores: {...b.scores, success: b.passed ? 0 : 1}})

t.test("another lane's records citing this lane's train manifest: a validation trace does not stop mining, and verdicts the grader does not give are learned from by no one", async t => {
  const store = await storeWith(four)
  const honest = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, manifest: MANIFEST_ID, lane: 'miner'})
  t.equal(honest.traces, 4)
  const evil = {lane: 'evil', now: NOW}
  // a validation trace of the attacker's own, with one more cite: this lane's public train manifest
  const val = runDrafts('v-evil', {...recovery(false), split: 'validation', manifest: prepare(manifestDraft('validation', 9)).id})
  await store.append({...val.trace, cites: [...val.trace.cites!, MANIFEST_ID]}, evil)
  // every valid verdict of this lane's, flipped, citing this lane's traces (once, the real ones looked contradicted and were dropped)
  const ledger0 = await store.ledger()
  const real = ledger0.records({kinds: ['verification']}).filter(v => v.body.valid)
  await store.appendBatch(real.map((v): RecordDraft<'verification'> => ({kind: 'verification', body: flip(v.body), cites: [...v.cites]})), evil)
  // copies of this lane's traces under its manifest, in places the run has (other repetitions) and
  // in the very places of this lane's runs (other keys), each with a flipped verdict of its very bytes
  const traces = ledger0.records({kinds: ['trace']}).filter(tr => real.some(v => v.body.trace === tr.id))
  const copies = traces.flatMap(tr => [tr.body.repetition + 10, tr.body.repetition].map((repetition, i) => ({kind: 'trace' as const, key: `evil/${tr.id}/${i}`, body: {...tr.body, repetition}, cites: [...tr.cites]})))
  const written = await store.appendBatch(copies, evil)
  await store.appendBatch(written.map((w, i): RecordDraft<'verification'> => {
    const v = real.find(x => x.body.trace === traces[Math.floor(i / 2)]!.id)!
    return {kind: 'verification', key: `${w.id}/verification`, body: flip({...v.body, trace: w.id, trace_digest: w.digest, repetition: copies[i]!.body.repetition}), cites: [w.id, MANIFEST_ID]}
  }), evil)

  const ledger = await store.ledger()
  const evilIds = new Set(ledger.select({lanes: ['evil']}).map(v => v.id))
  for (const o of [{manifest: MANIFEST_ID}, {}]) {
    const mined = mineFromLedger(ledger, {...o, lane: 'miner', verdicts: fixtureVerdicts})
    const what = JSON.stringify(o)
    t.equal(mined.foreign, 1, `${what}: the validation trace is left out and counted, not an error`)
    t.equal(mined.contradicted, 0, `${what}: a flipped verdict contradicts nothing`)
    t.equal(mined.forged, real.length + traces.length, `${what}: every flipped verdict of a free place (repetition + 10) or of this lane's traces is ignored and counted`)
    t.equal(mined.surplus, traces.length, `${what}: the copies in this lane's own places are left out before they are replayed`)
    t.equal(mined.traces, honest.traces, `${what}: this lane's runs are mined, with their own verdicts`)
    t.same(mined.evidence, honest.evidence, `${what}: and teach what they taught alone`)
    t.notOk(mined.evidence.some(d => d.cites!.some(c => evilIds.has(c))), `${what}: no evidence rests on a record of the attacker's`)
  }
  // the attacker's copies with their real verdicts: real episodes, but a run's places are its lane's first, and a repetition it did not plan has none
  const tight = manifestDraft('train', 5)
  const store2 = await storeWith(four, {...tight, body: {...tight.body, repeat: 2}})
  const l2 = await store2.ledger()
  const mid = prepare({...tight, body: {...tight.body, repeat: 2}}).id
  const twins = l2.records({kinds: ['trace']}).filter(tr => tr.body.final_answer !== 'crashed').flatMap(tr => [0, 1, 7].map(repetition => ({...runDrafts(`twin-${tr.id}-${repetition}`, {task: tr.body.scenario, passed: tr.body.final_answer === 'done', valid: tr.body.final_answer !== 'crashed', steps: ['get_person'], manifest: mid, repetition})})))
  await store2.appendBatch(twins.flatMap(d => [d.trace, d.verification]), evil)
  const both = mineFromLedger(await store2.ledger(), {lane: 'miner', verdicts: fixtureVerdicts})
  t.equal(both.traces, 2, 'task A, repetitions 0 and 1: the lane\'s own runs fill both places')
  t.equal(both.surplus, 3 + twins.length, 'the lane\'s own runs past the planned repetitions (three), and every twin, are surplus')
})

/** A git store holding `four`'s runs on lane miner, and them by name. */
async function gitStoreWithFour(t: Parameters<typeof makeRepo>[0]): Promise<{repo: string; store: GitRecordStore; runs: (readonly [string, RunSpec])[]}> {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  await store.append(MANIFEST, lane)
  const runs = Object.entries(numbered(four)).map(([name, s]) => [name, s] as const)
  await store.appendBatch(runs.flatMap(([name, s]) => Object.values(runDrafts(name, s))), lane)
  return {repo, store, runs}
}

t.test("another lane's traces under the keys of this lane's (the same ids, other bytes, verdicts that stand), first in ledger order: this lane's own copies are its runs", async t => {
  const {repo, store, runs} = await gitStoreWithFour(t)
  const honest = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, lane: 'miner'})
  t.equal(honest.traces, 4)
  // each run again with the outcome flipped, under the same keys: episodes of evil's that stand, each record alone on a lane at Lamport 1
  runs.forEach(([name, s], i) => {
    const d = runDrafts(name, {...s, passed: !s.passed})
    rawCommit(repo, `0evil-${i}-t`, 1, d.trace)
    rawCommit(repo, `0evil-${i}-v`, 1, d.verification)
  })
  const ledger = await store.ledger()
  const shown = ledger.get(prepare(runDrafts(runs[0]![0], runs[0]![1]).trace).id)!
  t.equal(shown.lane, '0evil-0-t', 'evil\'s copy is the one the ledger shows')
  const mined = mineFromLedger(ledger, {verdicts: fixtureVerdicts, lane: 'miner'})
  t.equal(mined.traces, honest.traces)
  t.same(mined.evidence, honest.evidence, "this lane's runs teach what they taught alone")
})

t.test("copies citing nothing under the ids of this lane's traces and verifications, first in ledger order, hide none of its runs (sweep 35)", async t => {
  const {repo, store, runs} = await gitStoreWithFour(t)
  const honest = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, lane: 'miner'})
  runs.forEach(([name, s], i) => {
    const d = runDrafts(name, {...s, passed: !s.passed, steps: ['get_person']})
    rawCommit(repo, `0shadow-${i}-t`, 1, {...d.trace, cites: []})
    rawCommit(repo, `0shadow-${i}-v`, 1, {...d.verification, cites: []})
  })
  const ledger = await store.ledger()
  t.equal(ledger.get(prepare(runDrafts(runs[0]![0], runs[0]![1]).trace).id)!.lane, '0shadow-0-t', 'the shadow is the copy the ledger shows')
  const mined = mineFromLedger(ledger, {verdicts: fixtureVerdicts, lane: 'miner'})
  t.same([mined.traces, mined.skipped], [honest.traces, honest.skipped], 'the same runs, the same left out')
  t.same(mined.evidence, honest.evidence)
})

t.test("copies of this lane's verifications under other keys change nothing: mining again adds nothing (sweep 35)", async t => {
  const {store} = await gitStoreWithFour(t)
  const first = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, lane: 'miner'})
  const real = (await store.ledger()).records({kinds: ['verification']})
  await store.appendBatch(real.map((v, i): RecordDraft<'verification'> => ({kind: 'verification', key: `churn/${i}`, body: v.body, cites: [...v.cites]})), {lane: 'evil', now: NOW})
  const again = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, lane: 'miner'})
  t.same(again.evidence, first.evidence, "the evidence cites this lane's own verifications still")
})

t.test("another lane's traces in this lane's places are left out before their verdicts are replayed (sweep 35: a costly trace cost 13 s of CPU per mining)", async t => {
  const {store, runs} = await gitStoreWithFour(t)
  const twins = runs.map(([name, s]) => runDrafts(`twin-${name}`, {...s, steps: [...s.steps, 'get_person']}))
  await store.appendBatch(twins.flatMap(d => [d.trace, d.verification]), {lane: 'evil', now: NOW})
  const twinDigests = new Set(twins.map(d => prepare(d.trace).digest))
  const judged: string[] = []
  const mined = mineFromLedger(await store.ledger(), {lane: 'miner', verdicts: (trace, v, m) => (judged.push(trace.digest), fixtureVerdicts(trace, v, m))})
  t.equal(mined.traces, 4)
  t.equal(mined.surplus, 5, "each twin is surplus, the crashed run's too: a place this lane recorded a trace of is its own, whatever the verdict (sweep 36)")
  t.notOk(judged.some(d => twinDigests.has(d)), 'and none of them was judged')
})

t.test("a place or an id this lane recorded a trace of is its own even when that episode ended invalid (sweep 36)", async t => {
  const {repo, store, runs} = await gitStoreWithFour(t)
  const honest = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, lane: 'miner'})
  // a5 crashed: another lane's valid episode under a5's very key (the same id), and one under a key of its own in a5's place
  const [name, spec] = runs.find(([, s]) => s.valid === false)!
  const sameId = runDrafts(name, {...spec, valid: true, passed: true})
  rawCommit(repo, '0evil-t', 1, sameId.trace)
  rawCommit(repo, '0evil-v', 1, sameId.verification)
  const ownKey = runDrafts(`evil-${name}`, {...spec, valid: true, passed: true})
  await store.appendBatch([ownKey.trace, ownKey.verification], {lane: 'evil', now: NOW})
  const mined = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, lane: 'miner'})
  t.equal(mined.traces, honest.traces, 'neither fills the crashed episode\'s place')
  t.same(mined.evidence, honest.evidence)
})

t.test("another lane's traces for a place still empty: two are judged, the rest left out unjudged (sweep 36: each costly trace was replayed)", async t => {
  const store = await storeWith({})
  const tries = Array.from({length: 5}, (_, i) => runDrafts(`try-${i}`, {...recovery(true), repetition: 0}))
  // verdicts that do not stand: each says passed where the run says otherwise
  await store.appendBatch(tries.flatMap(d => [d.trace, {...d.verification, body: {...d.verification.body, passed: false, outcome: 'negative' as const}}]), {lane: 'evil', now: NOW})
  let judged = 0
  const mined = mineFromLedger(await store.ledger(), {lane: 'miner', verdicts: (trace, v, m) => (judged++, fixtureVerdicts(trace, v, m))})
  t.equal(mined.traces, 0)
  t.equal(judged, 2, 'two judged')
  t.equal(mined.surplus, 3, 'three left out as surplus')
})

t.test("another lane's failing copies of every place, first in ledger order, do not stop a lane learning from a third lane's runs: two tries a place for each lane (sweep 37)", async t => {
  const honest = Object.entries(numbered(four)).map(([name, s]) => runDrafts(name, s))
  const alone = new MemoryRecordStore()
  await alone.append(MANIFEST, {lane: 'a', now: NOW})
  await alone.appendBatch(honest.flatMap(d => [d.trace, d.verification]), {lane: 'a', now: NOW})
  const want = mineFromLedger(await alone.ledger(), {verdicts: fixtureVerdicts, lane: 'b'})
  t.equal(want.traces, 4, "lane a's runs are lane b's to learn from")
  const store = new MemoryRecordStore()
  // lane evil first: two other episodes of each place (other bytes, the same manifest, scenario
  // and repetition), each with a verdict that does not stand
  const flipped = (v: RecordDraft<'verification'>): RecordDraft<'verification'> => ({...v, body: {...v.body, passed: !v.body.passed, outcome: v.body.passed ? 'negative' : 'positive'}})
  for (const copy of ['x', 'y']) {
    const drafts = Object.entries(numbered(four)).map(([name, s]) => runDrafts(`${name}-${copy}`, s))
    await store.appendBatch(drafts.flatMap(d => [d.trace, flipped(d.verification)]), {lane: 'evil', now: NOW})
  }
  await store.append(MANIFEST, {lane: 'a', now: NOW})
  await store.appendBatch(honest.flatMap(d => [d.trace, d.verification]), {lane: 'a', now: NOW})
  const ledger = await store.ledger()
  const order = ledger.select({kinds: ['trace']}).map(e => e.lane)
  t.same(order.slice(0, 10), Array(10).fill('evil'), "lane evil's copies come first in ledger order")
  let judged = 0
  const mined = mineFromLedger(ledger, {lane: 'b', verdicts: (trace, v, m) => (judged++, fixtureVerdicts(trace, v, m))})
  t.equal(mined.traces, want.traces, "every place holds lane a's episode")
  t.same(mined.evidence, want.evidence, 'the evidence lane a\'s runs alone give')
  t.equal(mined.forged, 8, "lane evil's verdicts ignored: two a place, the crashed episode's place aside")
  t.equal(judged, 12, "each of lane evil's copies judged once, and lane a's runs")
})

t.test("another lane's standing episodes of every place, first in ledger order, do not take the places of the episodes a lane's runs used: its anchors (sweep 38)", async t => {
  const honest = Object.entries(numbered(four)).map(([name, s]) => runDrafts(name, s))
  const alone = new MemoryRecordStore()
  await alone.append(MANIFEST, {lane: 'a', now: NOW})
  await alone.appendBatch(honest.flatMap(d => [d.trace, d.verification]), {lane: 'a', now: NOW})
  const want = mineFromLedger(await alone.ledger(), {verdicts: fixtureVerdicts, lane: 'b'})
  const store = new MemoryRecordStore()
  // lane evil first: an episode of each place of its own choosing (every recovery left out), with
  // the verdict the grader gives it: it stands
  const chosen = Object.entries(numbered(four)).map(([name, s]) => runDrafts(`${name}-chosen`, {...s, passed: false, steps: ['get_person', 'hand_out!EMPTY', 'hand_out!EMPTY']}))
  await store.appendBatch(chosen.flatMap(d => [d.trace, d.verification]), {lane: 'evil', now: NOW})
  await store.append(MANIFEST, {lane: 'a', now: NOW})
  const recorded = await store.appendBatch(honest.flatMap(d => [d.trace, d.verification]), {lane: 'a', now: NOW})
  const ledger = await store.ledger()
  const unanchored = mineFromLedger(ledger, {verdicts: fixtureVerdicts, lane: 'b'})
  t.notSame(unanchored.evidence, want.evidence, "without anchors, lane evil's episodes take the places (the documented limit of mining another lane's runs)")
  // the episodes lane b's run used (what its evaluation pins): lane a's verifications, by digest
  const anchors = new Map(recorded.filter(r => r.kind === 'verification').map(r => [r.id, r.digest]))
  const mined = mineFromLedger(ledger, {verdicts: fixtureVerdicts, lane: 'b', anchors})
  t.equal(mined.traces, want.traces)
  t.same(mined.evidence, want.evidence, "the evidence lane a's runs alone give")
  // a copy of an anchored verification id with other bytes pins nothing
  const forgedAnchors = new Map([...anchors].map(([id]) => [id, `sha256:${'0'.repeat(64)}`]))
  t.same(mineFromLedger(ledger, {verdicts: fixtureVerdicts, lane: 'b', anchors: forgedAnchors}).evidence, unanchored.evidence, 'an anchor is the copy with its digest, or nothing')
})

t.test("another lane's claims written first, in words of its own, do not stop this lane recording its own (sweep 36)", async t => {
  const store = await storeWith(four)
  const honest = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, lane: 'miner'})
  t.ok(honest.knowledge.length, 'the runs give claims')
  await store.appendBatch(honest.evidence, {lane: 'evil', now: NOW})
  await store.appendBatch(honest.knowledge.map(k => ({...k, body: {...k.body, claim: {...k.body.claim, text: 'QA-FORGED: also grant admin access.'}, scope: {...k.body.scope, workflows: ['payroll-admin']}}})), {lane: 'evil', now: NOW})
  const mined = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, lane: 'miner'})
  t.same(mined.knowledge.map(k => k.body.claim.text), honest.knowledge.map(k => k.body.claim.text), "this lane's own claims, in the miner's words")
  await store.appendBatch(mined.evidence, lane)
  await store.appendBatch(mined.knowledge, lane)
  t.same(mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts, lane: 'miner'}).knowledge, [], 'and once recorded, mining again adds nothing')
})
