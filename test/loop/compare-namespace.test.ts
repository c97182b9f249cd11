import t from 'tap'
import {GitRecordStore, MemoryRecordStore, namespaced, namespaceOf, inNamespace, type RecordStore} from '../../src/store/index.js'
import {prepare, type RecordDraft} from '../../src/records/index.js'
import type {KnowledgeBody} from '../../src/records/types.js'
import {recallForRun, recallable} from '../../src/loop/memory.js'
import {currentKnowledge} from '../../src/loop/knowledge.js'
import {armNamespace, parseArms, compareId} from '../../src/loop/compare/arms.js'
import {hypotheses, pairwise, type ArmEpisodes} from '../../src/loop/compare/verdicts.js'
import type {VerifiedEpisode} from '../../src/evals/runner/summary.js'
import {makeRepo} from '../helpers/repo.js'

const now = () => new Date('2026-12-01T12:00:00.000Z')
const SKILL = {name: 'onboarding', content: '---\nname: onboarding\n---\n# Onboarding\n'}

/** A knowledge record with a rule the scripted agent follows, claiming whatever `slug` says. */
function knowledge(slug: string, code: string): RecordDraft<'knowledge'> {
  const body: KnowledgeBody = {
    slug,
    claim: {type: 'recovery', text: `If \`assign_device\` fails with \`${code}\`, call \`escalate\` and stop.`},
    scope: {workflows: ['onboarding'], skills: ['onboarding']},
    conditions: [],
    rule: {kind: 'on_error', tool: 'assign_device', code, calls: ['escalate'], stop: true},
    unexplained: [],
    evidence: {supporting_runs: [], counterexamples: [], evidence_ids: []},
    statistics: {support: 5, failures: 5},
    confidence: 0.9,
    status: 'active',
    supersedes: [],
    contradicts: [],
  }
  return {kind: 'knowledge', body}
}

async function stores(t: {teardown(fn: () => void): void}): Promise<[string, RecordStore][]> {
  const repo = await makeRepo(t)
  const git = await GitRecordStore.open(repo)
  t.teardown(() => git.close())
  return [
    ['git', git],
    ['memory', new MemoryRecordStore()],
  ]
}

t.test('a knowledge record created in one arm is invisible to every other arm', async t => {
  for (const [name, store] of await stores(t)) {
    const id = compareId({skill: 'onboarding', agent: 'scripted', seed: 42, budget: 100, iterations: 1, trainRepeat: 1, evalRepeat: 1, maxRules: 8, recall: {items: 8, tokens: 1200}, start: 'a'.repeat(40)})
    const [a, b, c] = (['memory', 'compiler', 'trace2skill'] as const).map(arm => armNamespace(id, arm))
    const A = namespaced(store, a!)
    const B = namespaced(store, b!)
    t.equal(namespaceOf(A), a)
    const k = await A.append(knowledge('stock-a', 'OUT_OF_STOCK'), {lane: a!, now})
    t.ok((await A.ledger()).has(k.id), `${name}: arm A sees its own knowledge`)
    t.notOk((await B.ledger()).has(k.id), `${name}: arm B does not`)
    t.equal(currentKnowledge(await B.ledger()).length, 0, `${name}: B's knowledge snapshot is empty`)
    t.same(recallable(await A.ledger(), 'onboarding').map(x => x.record.id), [k.id])
    // A recalls it into its agent's context; B recalls nothing and appends no recall
    const ra = await recallForRun(A, {mode: 'closed_loop', skill: SKILL, lane: a!, budget: {items: 8, tokens: 1200}, now})
    t.same(ra.context?.knowledge, [k.id])
    t.match(ra.context?.text, /If `assign_device` fails with `OUT_OF_STOCK`, call `escalate` and stop\./)
    const rb = await recallForRun(B, {mode: 'closed_loop', skill: SKILL, lane: b!, budget: {items: 8, tokens: 1200}, now})
    t.same(rb, {mode: 'closed_loop'}, `${name}: nothing to recall in B`)
    t.ok((await store.ledger()).has(k.id), `${name}: the repository itself holds every arm's records`)
    t.equal(c, `cmp-${id}-trace2skill`)
  }
})

t.test('attacker: a record on arm A\'s lane that claims to be arm B\'s, or on a look-alike lane, never reaches B', async t => {
  for (const [name, store] of await stores(t)) {
    const a = armNamespace('0123456789ab', 'memory')
    const b = armNamespace('0123456789ab', 'compiler')
    const B = namespaced(store, b)
    // a forged arm name in everything a record can say about itself: slug, scope, and a manifest naming B's namespace
    const forged = knowledge(`${b}-knowledge`, 'FORGED_A')
    forged.body.scope.skills = ['onboarding', b]
    const f1 = await store.append(forged, {lane: a, now})
    const manifest: RecordDraft<'manifest'> = {kind: 'manifest', body: {purpose: 'run', split: 'train', dataset: {tree: 'a'.repeat(40), scenarios: ['s1']}, skill: {name: 'onboarding', blob: 'b'.repeat(40)}, environment: {world: 'w', grader: 'g', tools: `sha256:${'c'.repeat(64)}`}, agent: {name: 'scripted'}, seed: 1, repeat: 1, namespace: b}}
    const f2 = await store.append(manifest, {lane: a, now})
    // look-alike lanes: a prefix of B's name, and B's name with something glued on
    const f3 = await store.append(knowledge('lookalike-1', 'FORGED_B'), {lane: `${b}x`, now})
    const f4 = await store.append(knowledge('lookalike-2', 'FORGED_C'), {lane: b.slice(0, -1), now})
    const seen = await B.ledger()
    for (const [what, id] of [['forged arm name', f1.id], ['manifest naming B', f2.id], ['B + suffix', f3.id], ['prefix of B', f4.id]] as const) t.notOk(seen.has(id), `${name}: ${what} is not in B`)
    t.equal((await recallForRun(B, {mode: 'recall_only', skill: SKILL, lane: b, budget: {items: 8, tokens: 1200}, now})).context, undefined, `${name}: B recalls none of it`)
    t.same((await B.lanes()).map(l => l.lane), [], `${name}: B lists none of those lanes`)
    // a sub-lane of B (b.<suffix>) is B's by name: the one way into a namespace is its lanes
    const own = await store.append(knowledge('own-sub-lane', 'OWN'), {lane: `${b}.worker`, now})
    t.ok((await B.ledger()).has(own.id))
    t.ok(inNamespace(b, `${b}.worker`) && !inNamespace(b, `${b}x`) && !inNamespace(b, `${b}-x`))
  }
})

t.test('a namespaced store refuses to write outside its namespace, before anything is written', async t => {
  for (const [name, store] of await stores(t)) {
    const b = armNamespace('0123456789ab', 'compiler')
    const B = namespaced(store, b)
    const before = (await store.ledger()).size
    await t.rejects(B.append(knowledge('escape', 'ESCAPE'), {lane: armNamespace('0123456789ab', 'memory'), now}), {code: 'E_USAGE', message: /outside namespace/})
    await t.rejects(B.appendBatch([knowledge('escape-2', 'ESCAPE')], {lane: 'alice', now}), {code: 'E_USAGE'})
    t.equal((await store.ledger()).size, before, `${name}: nothing written`)
    t.throws(() => namespaced(store, 'bad/name'), {code: 'E_INVALID_NAME'})
  }
})

t.test('the same record appended in a second arm is its own copy there, never silently shared; another lane holding it first blocks nothing', async t => {
  for (const [name, store] of await stores(t)) {
    const [a, b] = ['baseline', 'memory'].map(arm => armNamespace('0123456789ab', arm))
    const d = knowledge('shared', 'SHARED')
    const id = prepare(d).id
    await namespaced(store, a!).append(d, {lane: a!, now})
    const r = await namespaced(store, b!).append(d, {lane: b!, now})
    t.match(r, {status: 'created', lane: b}, `${name}: B records its own copy`)
    t.ok((await namespaced(store, b!).ledger()).has(id), `${name}: B sees its copy`)
    t.ok((await namespaced(store, a!).ledger()).has(id), `${name}: A still sees its own`)
    t.same((await store.ledger()).problems.filter(p => p.code === 'duplicate-id'), [], `${name}: two copies of the same bytes are no conflict`)
    // a copy another clone published under another lane name, with other content under the same key
    const key: RecordDraft<'knowledge'> = {...knowledge('keyed', 'KEYED'), key: 'arm/keyed'}
    await store.append({...key, body: {...key.body, claim: {...key.body.claim, text: 'a squat'}}}, {lane: 'mallory', now})
    const c = armNamespace('0123456789ab', 'compiler')!
    t.match(await namespaced(store, c).append(key, {lane: c, now}), {status: 'created', lane: c}, `${name}: a lane outside the namespace does not block it`)
    t.equal((await namespaced(store, c).ledger()).load<'knowledge'>((await namespaced(store, c).ledger()).get(prepare(key).id)!).body.claim.text, key.body.claim.text, `${name}: and the namespace sees its own content`)
  }
})

t.test('--arms: known arms in the table\'s order; unknown ones named', async t => {
  t.same(parseArms(undefined), ['baseline', 'trace2skill', 'memory', 'compiler'])
  t.same(parseArms('compiler, baseline'), ['baseline', 'compiler'])
  t.throws(() => parseArms('baseline,mmeory'), {code: 'E_USAGE', message: /unknown arm: "mmeory"/})
  t.throws(() => parseArms(''), {code: 'E_USAGE'})
})

/** Episodes of an arm: scenario s<i> passed when `pass(i)`. */
function episodes(arm: ArmEpisodes['arm'], n: number, pass: (i: number) => boolean): ArmEpisodes {
  const verified: VerifiedEpisode[] = Array.from({length: n}, (_, i) => ({id: `vf-${arm}-${i}`, digest: 'd', body: {scenario: `s${i}`, repetition: 0, valid: true, passed: pass(i), invariants: [], constraint_violations: [], scores: {}} as unknown as VerifiedEpisode['body']}))
  const passed = verified.filter(v => v.body.passed).length
  return {arm, success: passed / n, ci: [0, 1], total: n, evaluation: `el-${arm}`, verified}
}

t.test('H1-H3 verdicts rest on the paired test: supported, contradicted, not supported, not tested', async t => {
  const arms = [episodes('baseline', 40, () => false), episodes('trace2skill', 40, i => i < 30), episodes('memory', 40, i => i < 20), episodes('compiler', 40, i => i < 21)]
  const pairs = pairwise(arms)
  t.equal(pairs.length, 6)
  const h = Object.fromEntries(hypotheses(arms, pairs).map(x => [x.id, x]))
  t.equal(h.H2!.verdict, 'supported', 'compiler 21/40 vs baseline 0/40')
  t.equal(h.H1!.verdict, 'contradicted', 'compiler 21/40 vs trace2skill 30/40, 9 discordant pairs all the other way')
  t.equal(h.H3!.verdict, 'not supported', 'one episode apart is no evidence')
  t.match(h.H3!.evidence, /1 won, 0 lost/)
  const partial = hypotheses(arms.slice(0, 2), pairwise(arms.slice(0, 2)))
  t.same(partial.map(x => x.verdict), ['not tested', 'not tested', 'not tested'])
})
