import t from 'tap'
import {parseRule} from '../../src/knowledge/index.js'
import {classifyRule, stateH4, worldFacts, type ExecutorEffect} from '../../src/matrix/classify.js'
import {ablationUnits, parseSkillAtVersion, removalCandidates, type UnitCredit} from '../../src/matrix/ablate.js'
import {reworded, withoutLines} from '../../src/matrix/variants.js'
import {namespaceOf, slugOf} from '../../src/matrix/namespace.js'
import {GitRecordStore} from '../../src/store/index.js'
import {makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {scopedStore} from '../../src/matrix/namespace.js'

const EX = ['scripted:careless', 'scripted:literal', 'scripted:cautious']
const eff = (credits: number[], rewordedCredits = credits.map(() => 0)): ExecutorEffect[] =>
  EX.map((executor, i) => ({executor, credit: credits[i]!, ci: [Math.min(0, credits[i]!), Math.max(0, credits[i]!)], reworded: rewordedCredits[i]!, episodes: 25, evaluations: {without: 'el-1', reworded: 'el-2'}}))
const classify = (line: string, credits: number[], rw?: number[], source = EX[0]!) => {
  const rule = parseRule(line)!
  return classifyRule({line: 12, text: line, rule, canonical: line, source, effects: eff(credits, rw)})
}

t.test('the classifier: each class from its measured effects, with the evidence in its reason', async t => {
  const onError = 'If `assign_device` fails with `OUT_OF_STOCK`, call `create_procurement_request`, then `add_blocker`, then `escalate`.'
  const readFirst = 'Before `assign_device`, call `get_inventory`.'
  // helps every executor and names a world fact (an error code)
  let c = classify(onError, [0.08, 0.12, 0.04])
  t.equal(c.class, 'environment knowledge')
  t.match(c.reason, /helps every executor.*scripted:literal \+12\.0.*error code OUT_OF_STOCK/)
  t.same(c.helps, EX)
  // helps every executor, no world fact
  c = classify(readFirst, [0.04, 0.04, 0.04])
  t.equal(c.class, 'general procedure')
  // helps only its source
  c = classify(onError, [0.08, 0, -0.04])
  t.equal(c.class, 'model compensation')
  t.match(c.reason, /its source executor only \(scripted:careless \+8\.0/)
  // helps only another executor
  c = classify(onError, [0, 0, 0.08])
  t.equal(c.class, 'model compensation')
  t.match(c.reason, /only scripted:cautious, not its source scripted:careless/)
  // helps two of three: a procedure about one tool
  c = classify(readFirst, [0.04, 0.08, 0])
  t.equal(c.class, 'tool-specific procedure')
  t.match(c.reason, /but not scripted:cautious/)
  // helps only by its wording wherever it helps
  c = classify(onError, [0, 0.12, 0], [0, 0.12, 0])
  t.equal(c.class, 'prompt-format hack')
  t.match(c.reason, /reworded/)
  // the same help survives the rewording on one executor: not a format hack
  c = classify(onError, [0.04, 0.12, 0], [0, 0.12, 0])
  t.not(c.class, 'prompt-format hack')
  // no effect anywhere: classed by content, and says so
  c = classify(readFirst, [0, 0, -0.04])
  t.equal(c.class, 'tool-specific procedure')
  t.equal(c.measured, false)
  t.match(c.reason, /no measured effect/)
  t.equal(classify(onError, [0, 0, 0]).class, 'environment knowledge')
  t.same(worldFacts(parseRule('Never call `complete_onboarding` while the workflow has open blockers.')!), ['workflow state "open_blockers"'])
  t.same(worldFacts(parseRule('Before `create_ticket`, call `search_tickets` and reuse an open ticket with the same subject.')!), ['guard "reuse_open"'])
})

t.test('H4: supported only when some rules transfer and some compensate', async t => {
  const onError = 'If `assign_device` fails with `OUT_OF_STOCK`, call `escalate`.'
  const transfer = {...classify(onError, [0.1, 0.1, 0.1]), source: EX[0]!}
  const comp = {...classify(onError, [0.1, 0, 0]), source: EX[0]!}
  const cells = EX.flatMap(s => EX.map(e => ({source: s, executor: e, rate: s === e ? 0.8 : 0.6, ci: [0.5, 0.9] as [number, number]})))
  t.equal(stateH4([transfer, comp], cells).verdict, 'supported')
  t.equal(stateH4([transfer], cells).verdict, 'not supported')
  t.equal(stateH4([comp], cells).verdict, 'not supported')
  t.match(stateH4([transfer, comp], cells).evidence.join('\n'), /skill from scripted:careless: 80\.0% on its own executor, 60\.0% on scripted:literal/)
})

t.test('ablation units, variants and removal candidates (pure)', async t => {
  const text = ['---', 'name: onboarding', '---', '## Procedure', '1. Look up the employee.', '2. Before `assign_device`, call `get_inventory`.', '3. If `grant_access` fails with `ROLE_NOT_ALLOWED`, call `escalate`.', ''].join('\n')
  const units = ablationUnits(text)
  t.same(units.map(u => [u.kind, u.lines]), [['rule', [6]], ['rule', [7]]])
  // a patch unit per promotion: the lines it added that are still there
  const line = (n: number, origin: 'initial' | 'promotion', proposal?: string, version?: number) => ({line: n, text: text.split('\n')[n - 1]!, commit: 'c'.repeat(40), origin, knowledge: [], ...(proposal ? {proposal, version} : {})})
  const blamed = {skill: 'onboarding', path: 'skills/onboarding/SKILL.md', main: {commit: 'c'.repeat(40), version: 3}, lines: [1, 2, 3, 4, 5].map(n => line(n, 'initial')).concat([line(6, 'promotion', 'pr-2', 2), line(7, 'promotion', 'pr-3', 3), line(8, 'promotion', 'pr-3', 3)])}
  t.same(ablationUnits(text, blamed).filter(u => u.kind === 'patch').map(u => [u.id, u.lines, u.proposal]), [['patch-v2', [6], 'pr-2'], ['patch-v3', [7], 'pr-3']], 'blank lines are not a patch\'s content')
  t.notOk(withoutLines(text, [6]).includes('get_inventory'))
  t.match(reworded(text, 6), /call `get_inventory`\n/)
  t.ok(parseRule(reworded(text, 6).split('\n')[5]!), 'the reworded line is still a rule to the parser')
  const credit = (v: number, h: number) => ({validation: {credit: v, ci: [v, v] as [number, number], wins: 0, losses: 0, episodes: 9, rate: 1, evaluation: 'el-x'}, holdout: {credit: h, ci: [h, h] as [number, number], wins: 0, losses: 0, episodes: 24, rate: 1, evaluation: 'el-y'}})
  const cu: UnitCredit[] = [
    {...units[0]!, credit: credit(0, 0), removal: true},
    {...units[1]!, credit: credit(-0.04, 0), removal: true},
    {id: 'patch-v2', kind: 'patch', lines: [6, 7], text: [], credit: credit(-0.1, -0.1), removal: true},
  ]
  t.same(removalCandidates(cu, ['validation', 'holdout']).map(u => u.id), [units[1]!.id, units[0]!.id], 'rules only, lowest credit first')
  t.same(parseSkillAtVersion('onboarding@3'), {skill: 'onboarding', version: 3})
  t.same(parseSkillAtVersion('onboarding@v2'), {skill: 'onboarding', version: 2})
  t.throws(() => parseSkillAtVersion('../etc@1'), {code: 'E_USAGE'})
  t.throws(() => parseSkillAtVersion('onboarding@0'), {code: 'E_USAGE'})
})

t.test('a namespace sees its own knowledge-side records only; its own appends stay visible even when another lane had them', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo)
  t.not(slugOf('scripted:careless'), slugOf('scripted:Careless'), 'one slug per spec')
  const a = namespaceOf('matrix', 'scripted:careless', 'c'.repeat(40))
  const b = namespaceOf('matrix', 'scripted:literal', 'c'.repeat(40))
  const sa = scopedStore(store, a)
  const sb = scopedStore(store, b)
  const kn = await sa.append(sampleDraft('knowledge', 1), {lane: a.lane})
  const mf = await sa.append(sampleDraft('manifest', 1), {lane: a.lane})
  const tr = await sa.append(sampleDraft('trace', 1), {lane: a.lane})
  const other = await store.append(sampleDraft('knowledge', 2), {lane: 'alice'})
  t.ok((await sa.ledger()).has(kn.id))
  t.notOk((await sb.ledger()).has(kn.id), "another source's knowledge is invisible")
  t.notOk((await sb.ledger()).has(mf.id), "another source's manifests are invisible (the miner never reads its traces)")
  t.ok((await sb.ledger()).has(tr.id), 'episodes are shared: their ids pin the manifest')
  t.notOk((await sa.ledger()).has(other.id), "main's knowledge is invisible too")
  t.ok((await store.ledger()).has(kn.id), 'the store itself sees everything')
  // the same record appended through b (content-derived id, written once on a's lane) is b's too
  await sb.append(sampleDraft('knowledge', 1), {lane: b.lane})
  t.ok((await sb.ledger()).has(kn.id))
})

t.test('blame --credit as text: each credited line with its credit per split, removal candidates marked', async t => {
  const {renderCreditBlame} = await import('../../src/reports/credit.js')
  const b = {skill: 'onboarding', path: 'skills/onboarding/SKILL.md', main: {commit: 'c'.repeat(40), version: 2}, lines: [{line: 1, text: '## Procedure', commit: 'c'.repeat(40), origin: 'initial' as const, knowledge: []}, {line: 2, text: '1. Before `assign_device`, call `get_inventory`.', commit: 'c'.repeat(40), origin: 'initial' as const, knowledge: []}]}
  const c = (v: number) => ({credit: v, ci: [v - 0.04, v] as [number, number], wins: 0, losses: 0, episodes: 9, rate: 1, evaluation: 'el-x'})
  const note = {note: 'nt-1', skill: 'onboarding', version: 2, commit: b.main.commit, blob: 'b'.repeat(40), agent: 'scripted', seed: 42, repeat: 1, splits: ['validation' as const, 'holdout' as const], baseline: {}, candidates: ['rule-1'], units: [{id: 'rule-1', kind: 'rule' as const, lines: [2], text: [b.lines[1]!.text], rule: 'x', credit: {validation: c(0), holdout: c(-0.04)}, removal: true}]}
  const out = renderCreditBlame(b, note, 'head\n1 | ## Procedure\n2 | 1. Before')
  t.match(out, /credit: scripted, repeat 1, seed 42 \(nt-1\)/)
  t.match(out, /val \+0\.0 \[-4\.0, \+0\.0\] {2}hol -4\.0 \[-8\.0, -4\.0\] {2}REMOVABLE {2}2 \| 1\. Before/)
  t.match(renderCreditBlame(b, undefined, 'head'), /no ablation of this SKILL\.md yet/)
})
