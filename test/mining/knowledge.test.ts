import t from 'tap'
import type {ChatFn, ChatMessage} from '../../src/agents/openai/chat.js'
import {renderRule, type Rule} from '../../src/knowledge/index.js'
import {CONFIDENCE_FORMULA, confidenceOf, draftClaimTexts, mergeKnowledge, mineEvidence, supersededIds, type Identified} from '../../src/mining/index.js'
import {MAX_RIVALS} from '../../src/mining/knowledge.js'
import {prepare, type RecordDraft} from '../../src/records/index.js'
import type {EvidenceBody, KnowledgeBody} from '../../src/records/types.js'
import {runs} from '../helpers/mining.js'
import {MemoryRecordStore} from '../../src/store/index.js'
import {currentKnowledge} from '../../src/loop/knowledge.js'

const ids = runs(Object.fromEntries(Array.from({length: 12}, (_, i) => [`r${i}`, {task: 'T', passed: true, steps: ['get_person']}]))).id
const R = (...n: number[]) => ids(...n.map(i => `r${i}`))

/** Evidence of format 2; `unexplained` (default none) are the counterexamples nothing explains. */
function evidence(rule: Rule, supporting: string[], counterexamples: string[] = [], unexplained: string[] = []): Identified<EvidenceBody> {
  const body: EvidenceBody = {pattern: 'recovery_strategy', signature: `recovery_strategy:${JSON.stringify(rule)}`, description: renderRule(rule), workflows: ['w'], tools: [rule.tool], rule: {...rule}, supporting, counterexamples, support: supporting.length, failures: counterexamples.length, unexplained, miner: {name: 'exp-miner', version: '2'}}
  return {id: prepare({kind: 'evidence', body}).id, body}
}
const stored = (drafts: RecordDraft<'knowledge'>[]): Identified<KnowledgeBody>[] => drafts.map(d => ({id: prepare(d).id, body: d.body}))
const order: Rule = {kind: 'on_error', tool: 'hand_out', code: 'EMPTY', calls: ['order'], stop: false}
const notify: Rule = {kind: 'on_error', tool: 'hand_out', code: 'EMPTY', calls: ['notify'], stop: true}

t.test('evidence becomes a structured claim that cites it, with a stated confidence', async t => {
  const e = evidence(order, R(0, 1, 2, 3, 4, 5, 6, 7), R(8))
  const [k] = mergeKnowledge([e], [])
  t.same(k!.cites, [e.id])
  t.match(k!.body, {
    claim: {type: 'recovery', text: 'If `hand_out` fails with `EMPTY`, call `order`.'},
    scope: {workflows: ['w'], tools: ['hand_out']}, conditions: ['`hand_out` failed with `EMPTY`'], rule: order,
    evidence: {supporting_runs: R(0, 1, 2, 3, 4, 5, 6, 7), counterexamples: R(8), evidence_ids: [e.id]},
    statistics: {support: 8, failures: 1}, confidence: confidenceOf(8, 0), confidence_formula: CONFIDENCE_FORMULA,
    status: 'active', supersedes: [], contradicts: [], unexplained: [],
  })
  t.match(k!.body.status_reason, /every counterexample explained/)
  t.ok(k!.body.confidence > 0.5 && k!.body.confidence < 1, 'the Wilson lower bound is below the observed share')
  t.equal(mergeKnowledge([evidence(order, R(0, 1), R(2))], [])[0]!.body.status, 'candidate', 'too little evidence stays a candidate')
})

t.test('a counterexample nothing explains lowers the confidence and keeps the claim a candidate, saying why', async t => {
  const [k] = mergeKnowledge([evidence(order, R(0, 1, 2, 3, 4, 5, 6, 7), R(8), R(8))], [])
  t.same([k!.body.status, k!.body.confidence, k!.body.unexplained], ['candidate', confidenceOf(8, 1), R(8)])
  t.match(k!.body.status_reason, /1 counterexample\(s\) its conditions do not explain/)
  const old = evidence(order, R(0, 1, 2, 3, 4, 5, 6, 7), R(8))
  delete old.body.unexplained
  t.same(mergeKnowledge([old], [])[0]!.body.unexplained, R(8), 'format-1 evidence: its counterexamples count as unexplained')
})

t.test('a claim is never edited: changed runs give a new record that supersedes it; unchanged runs give nothing', async t => {
  const first = stored(mergeKnowledge([evidence(order, R(0, 1, 2, 3))], []))
  t.same(mergeKnowledge([evidence(order, R(0, 1, 2, 3))], first), [], 'the same evidence again: nothing new')
  const later = evidence(order, R(4, 5), R(6))
  const [k] = mergeKnowledge([later], first)
  t.same(k!.body.supersedes, [first[0]!.id])
  t.same(k!.body.evidence.supporting_runs, R(0, 1, 2, 3, 4, 5), 'runs judged before are carried over')
  t.same(k!.body.statistics, {support: 6, failures: 1})
  t.equal(k!.body.slug, first[0]!.body.slug)
  t.ok(k!.cites!.includes(first[0]!.id) && k!.cites!.includes(later.id))
  // the superseded record is no longer current: merging on top of both changes nothing
  t.same(mergeKnowledge([later], [...first, ...stored([k!])]), [])
})

t.test('rules with the same trigger and different responses contradict each other', async t => {
  const strong = evidence(order, R(0, 1, 2, 3, 4, 5, 6, 7))
  const weak = evidence(notify, R(8, 9, 10), R(11))
  const drafts = mergeKnowledge([weak, strong], [])
  t.same(drafts.map(d => d.body.rule), [order, notify], 'best first')
  const [a, b] = drafts
  t.same(a!.body.contradicts, [])
  t.same(b!.body.contradicts, [prepare(a!).id], 'the weaker names the stronger')
  t.equal(a!.body.status, 'active')
  t.equal(b!.body.status, 'candidate', 'contradicted by a more confident claim')
  // against recorded knowledge: a new claim on the same trigger names the standing one
  const existing = stored([a!])
  const [c] = mergeKnowledge([weak], existing)
  t.same(c!.body.contradicts, [existing[0]!.id])
  t.ok(c!.cites!.includes(existing[0]!.id))
  t.same(mergeKnowledge([evidence({...order, code: 'OTHER'}, R(0, 1, 2))], existing)[0]!.body.contradicts, [], 'another trigger: no contradiction')
})

t.test('knowledge from mined evidence is deterministic and validates', async t => {
  const r = runs({
    a1: {task: 'A', passed: true, steps: ['hand_out!EMPTY', 'order']},
    a2: {task: 'A', passed: false, steps: ['hand_out!EMPTY']},
    a3: {task: 'A', passed: true, steps: ['hand_out!EMPTY', 'order']},
    a4: {task: 'A', passed: false, steps: ['hand_out!EMPTY']},
  })
  const ev = mineEvidence(r.traces).map(body => ({id: prepare({kind: 'evidence', body}).id, body}))
  const once = mergeKnowledge(ev, [])
  t.ok(once.length >= 1)
  t.equal(JSON.stringify(mergeKnowledge([...ev].reverse(), [])), JSON.stringify(once))
  for (const d of once) t.doesNotThrow(() => prepare(d), d.body.slug)
})

const small = runs({
  a1: {task: 'A', passed: true, steps: ['hand_out!EMPTY', 'order']},
  a2: {task: 'A', passed: false, steps: ['hand_out!EMPTY']},
  a3: {task: 'A', passed: true, steps: ['hand_out!EMPTY', 'order']},
  a4: {task: 'A', passed: false, steps: ['hand_out!EMPTY']},
})
const knowledge = mergeKnowledge(mineEvidence(small.traces).map(body => ({id: prepare({kind: 'evidence', body}).id, body})), [])
const fake = (reply: (m: readonly ChatMessage[]) => string): ChatFn => async messages => ({text: reply(messages), usage: {tokensIn: 1, tokensOut: 1}})

t.test('an LLM may reword the claim text, and nothing else', async t => {
  const seen: string[] = []
  const drafted = await draftClaimTexts(knowledge, fake(m => (seen.push(m[1]!.content), 'When `hand_out` fails with `EMPTY`, place an `order`.')), {model: 'fake-1'})
  const k = drafted.find(d => d.body.rule)!
  const before = knowledge.find(d => d.body.slug === k.body.slug)!
  t.equal(k.body.claim.text, 'When `hand_out` fails with `EMPTY`, place an `order`.')
  t.equal(k.body.miner?.model, 'fake-1')
  const {claim: _a, miner: _b, drafted: exchange, ...rest} = k.body
  const {claim: _c, miner: _d, ...was} = before.body
  t.same(rest, was, 'rule, runs, statistics and links unchanged')
  t.match(exchange, {model: 'fake-1', accepted: true, response: 'When `hand_out` fails with `EMPTY`, place an `order`.'}, 'the exchange is recorded')
  t.ok(exchange!.prompt.includes('Claim: If `hand_out` fails with `EMPTY`'))
  t.same(k.cites, before.cites)
  t.ok(seen.some(p => p.includes('Claim: If `hand_out` fails with `EMPTY`, call `order` and stop.')), 'the prompt carries the claim')
  t.doesNotThrow(() => prepare(k))
})

t.test('a reply that drops a name or says nothing keeps the deterministic text', async t => {
  // (and one that breaks a line, or holds a character a terminal acts on: found by a sweep, a
  // reply of two lines printed a forged version header in `exp provenance`)
  const forged = '`hand_out` `EMPTY` `order` matter.\nonboarding v3  promoted by merge 0000000'
  for (const reply of ['', 'Place an order when the hand-out fails.', 'x'.repeat(400), forged, forged.replace('\n', '\u2028'), 'When `hand_out` fails with `EMPTY`, \u001b[2J`order`.']) {
    const drafted = await draftClaimTexts(knowledge, fake(() => reply))
    t.same(drafted.map(d => ({...d, body: {...d.body, drafted: undefined}})), knowledge.map(d => ({...d, body: {...d.body, drafted: undefined}})), JSON.stringify(reply.slice(0, 30)))
    t.ok(drafted.every(d => d.body.drafted?.accepted === false && d.body.drafted.response === reply), 'the refused exchange is recorded')
  }
})

t.test('a supersedes counts only when the newer claim carries the older one forward (another lane cannot hide knowledge by naming it)', async t => {
  const first = stored(mergeKnowledge([evidence(order, R(0, 1, 2, 3), R(4))], []))
  const [k] = mergeKnowledge([evidence(order, R(5, 6))], first)
  const later = stored([k!])
  t.same([...supersededIds([...first, ...later])], [first[0]!.id], 'what the miner writes carries the old claim forward')
  const forge = (change: (b: KnowledgeBody) => void): Identified<KnowledgeBody> => {
    const body = structuredClone(later[0]!.body)
    change(body)
    return {id: prepare({kind: 'knowledge', body}).id, body}
  }
  const hostile = {
    'no evidence at all': forge(b => ((b.evidence = {supporting_runs: [], counterexamples: [], evidence_ids: []}), (b.statistics = {support: 0, failures: 0}))),
    'an evidence id left out': forge(b => (b.evidence.evidence_ids = b.evidence.evidence_ids.slice(1))),
    'a judged run left out': forge(b => (b.evidence.counterexamples = [])),
    'another slug': forge(b => (b.slug = 'something-else-00000000')),
    'another rule under the slug': forge(b => (b.rule = notify)),
  }
  for (const [what, h] of Object.entries(hostile)) {
    t.same([...supersededIds([...first, h])], [], `${what}: the old claim stays current`)
    // and mining on top sees it as current: its runs are carried into the next claim
    const [next] = mergeKnowledge([evidence(order, R(7))], [...first, h])
    t.ok(next!.body.supersedes.includes(first[0]!.id), `${what}: the next claim still builds on it`)
    t.ok(next!.body.evidence.supporting_runs.includes(R(0)[0]!), `${what}: its runs are not lost`)
  }
  t.same([...supersededIds([forge(b => (b.supersedes = []))])], [], 'a claim that names no known record supersedes nothing')
})

t.test("the proposer's current knowledge keeps a claim another lane only names in supersedes", async t => {
  const store = new MemoryRecordStore()
  const [own] = mergeKnowledge([evidence(order, R(0, 1, 2, 3))], [])
  const mine = await store.append(own!, {lane: 'alice'})
  // mallory's claim of the same slug names alice's but carries none of its runs
  const body: KnowledgeBody = {...structuredClone(own!.body), evidence: {supporting_runs: [], counterexamples: [], evidence_ids: []}, statistics: {support: 0, failures: 0}, status: 'candidate', supersedes: [mine.id]}
  const theirs = await store.append({kind: 'knowledge', body, cites: [mine.id]}, {lane: 'mallory'})
  t.same(currentKnowledge(await store.ledger()).map(k => k.record.id).sort(), [mine.id, theirs.id].sort(), 'both stay current')
  // alice mining again carries her claim on and supersedes both (it carries mallory's, which has nothing)
  const [next] = mergeKnowledge([evidence(order, R(4))], (await store.ledger()).records({kinds: ['knowledge']}))
  const later = await store.append(next!, {lane: 'alice'})
  t.same(currentKnowledge(await store.ledger()).map(k => k.record.id), [later.id])
})

t.test('claims that supersede each other in a cycle hide none of the cycle: a slug keeps a current claim', async t => {
  const [a] = stored(mergeKnowledge([evidence(order, R(0, 1, 2, 3))], []))
  // keyed records can name each other's ids: two copies of a's claim, each superseding a and the other
  const copy = (id: string, supersedes: string[]): Identified<KnowledgeBody> => ({id, body: {...structuredClone(a!.body), supersedes}})
  const b = copy('kn-00000000000000000000000b', [a!.id, 'kn-00000000000000000000000c'])
  const c = copy('kn-00000000000000000000000c', ['kn-00000000000000000000000b'])
  t.same([...supersededIds([a!, b, c])], [a!.id], 'a is carried by b; b and c stay current')
  t.same([...supersededIds([c, b, a!])], [a!.id], 'in any order')
  const d = copy('kn-00000000000000000000000d', [c.id])
  const cycle3 = [copy(b.id, [a!.id, d.id]), c, d]
  t.same([...supersededIds([a!, ...cycle3])], [a!.id], 'a longer cycle too')
  // a plain chain still hides all but its last claim
  const [k2] = mergeKnowledge([evidence(order, R(4))], [a!])
  const [two] = stored([k2!])
  const [k3] = mergeKnowledge([evidence(order, R(5))], [a!, two!])
  const [three] = stored([k3!])
  t.same([...supersededIds([three!, a!, two!])].sort(), [a!.id, two!.id].sort())
})

t.test('a claim names at most MAX_RIVALS of the claims it contradicts, the most confident among them', async t => {
  // another lane writes many claims on the trigger of an honest one, each answering it differently
  const rivals = Array.from({length: MAX_RIVALS * 3}, (_, i) => {
    const rule: Rule = {kind: 'on_error', tool: 'hand_out', code: 'EMPTY', calls: [`call_${i}`], stop: false}
    const [draft] = mergeKnowledge([evidence(rule, R(0), [], [])], [])
    return {id: prepare(draft!).id, body: {...draft!.body, confidence: i === 150 ? 0.99 : 0.01}}
  })
  const [claim] = mergeKnowledge([evidence(order, R(0, 1, 2, 3, 4, 5, 6, 7))], rivals)
  t.equal(claim!.body.contradicts.length, MAX_RIVALS)
  t.ok(claim!.body.contradicts.includes(rivals[150]!.id), 'the most confident rival is named')
  t.same(claim!.body.contradicts, [...claim!.body.contradicts].sort(), 'in id order')
  t.equal(claim!.body.status, 'candidate')
  t.match(claim!.body.status_reason, `contradicted by ${rivals[150]!.id}`)
  t.ok(Buffer.byteLength(JSON.stringify(claim)) < 16 * 1024, 'the record stays small')
})
