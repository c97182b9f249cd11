import t from 'tap'
import {memoryHistory, OID, REASON} from '../helpers/report-ledger.js'
import {buildReport} from '../../src/reports/model.js'
import {dashboardLines} from '../../src/reports/dashboard.js'
import {sampleDraft} from '../helpers/records.js'
import type {RecordDraft} from '../../src/records/index.js'
import type {EvidenceBody, KnowledgeBody, ProposalBody} from '../../src/records/types.js'

t.test('iterations are rebuilt from history: each proposal with its train run, patterns, evaluations and decision', async t => {
  const h = await memoryHistory()
  const r = buildReport(h.ledger, h.mainline, {mainRef: 'refs/heads/main', skills: ['onboarding', 'absent']})
  t.equal(r.format, 'exp-report@1')
  t.same(r.main, {ref: 'refs/heads/main', commit: OID.m1})
  t.same(r.skills.map(s => s.skill), ['onboarding'], 'a skill without versions on main is left out')
  const s = r.skills[0]!
  t.equal(s.version, 2)
  const [one, two] = s.iterations
  t.match(one, {
    iteration: 1,
    proposal: h.ids.p1,
    skill: {version: 1, blob: OID.B1, commit: OID.c0},
    training: {evaluation: h.ids.train, passed: 4, total: 10, rate: 0.4},
    patterns: [{evidence: h.ids.evidence}],
    candidate: {version: 2, added: 1, lines: ['Check <stock> first.'], knowledge: [h.ids.knowledge]},
    validation: {baseline: 0.5, candidate: 0.75, wins: 3, losses: 1},
    regressions: ['val-x'],
    holdout: {baseline: 0.6, candidate: 0.7},
    decision: {id: h.ids.d1, verdict: 'accept', merge: OID.m1},
    main_after: {version: 2, blob: OID.B2, holdout: 0.7},
  })
  // the train run measured v1's blob, so it says nothing about v2: no training line for iteration 2;
  // its patterns are the evidence behind its own proposal (the same knowledge as the first)
  t.match(two, {iteration: 2, skill: {version: 2}, patterns: [{evidence: h.ids.evidence}], validation: {baseline: 0.75, candidate: 0.7}, holdout: undefined, decision: {verdict: 'reject', reasons: [REASON]}, main_after: {version: 2, holdout: 0.7}})
  t.equal(two!.training, undefined)
  t.same(s.chart, [
    {iteration: 0, version: 1, holdout: 0.6},
    {iteration: 1, version: 2, validation_before: 0.5, validation_after: 0.75, verdict: 'accept', holdout: 0.7},
    {iteration: 2, version: 2, validation_before: 0.75, validation_after: 0.7, verdict: 'reject', holdout: 0.7},
  ])
  t.match(s.rejected, [{iteration: 2, proposal: h.ids.p2, version: 3, decision: h.ids.d2, reasons: [REASON], failed_checks: ['success improves'], rejected_ref: `refs/research/rejected/${h.ids.p2}`}])
  t.same(s.provenance.versions.map(v => v.version), [1, 2])
  t.same(JSON.parse(JSON.stringify(r)), r, 'the model is plain JSON')
})

t.test("an iteration's patterns are the evidence behind its own proposal; evidence whose counts are not its runs is left out and named", async t => {
  const h = await memoryHistory()
  const ev = sampleDraft('evidence', 7).body as EvidenceBody
  const add = async (lane: string, d: RecordDraft) => (await h.store.append(d, {lane})).id
  // another lane's evidence, sitting after the second proposal in ledger order and behind none
  const stray = await add('mallory', {kind: 'evidence', body: {...ev, supporting: [h.ids.trace], counterexamples: [], support: 1, failures: 0}, cites: [h.ids.trace]})
  // and a chain of its own: knowledge citing evidence with counts no run list gives, and a proposal of it
  const liar = await add('mallory', {kind: 'evidence', body: {...ev, signature: 'missing_check:liar', supporting: [h.ids.trace], counterexamples: [], support: 2 ** 53 - 1, failures: 2 ** 53 - 1}, cites: [h.ids.trace]})
  const kn = sampleDraft('knowledge', 7).body as KnowledgeBody
  const knowledge = await add('mallory', {kind: 'knowledge', body: {...kn, evidence: {supporting_runs: [h.ids.trace], counterexamples: [], evidence_ids: [liar, h.ids.evidence]}}, cites: [liar, h.ids.evidence]})
  const pr = sampleDraft('proposal', 7).body as ProposalBody
  const p3 = await add('mallory', {kind: 'proposal', body: {...pr, knowledge: [knowledge], recall: h.ids.recall}, cites: [knowledge, h.ids.recall]})

  const r = buildReport(await h.store.ledger(), h.mainline, {mainRef: 'refs/heads/main', skills: ['onboarding']})
  const [one, two, three] = r.skills[0]!.iterations
  t.same([one, two].map(it => it!.patterns.map(p => p.evidence)), [[h.ids.evidence], [h.ids.evidence]], 'each honest iteration shows what its knowledge cites')
  t.notOk([one, two, three].some(it => it!.patterns.some(p => p.evidence === stray)), "evidence no proposal's chain reaches is no iteration's pattern")
  t.match(three, {proposal: p3, lane: 'mallory', inconsistent: [liar]})
  t.same(three!.patterns.map(p => p.evidence), [h.ids.evidence], 'the evidence with counts its runs contradict is left out')
  const lines = dashboardLines(three!)
  t.notOk(lines.some(l => l.includes(String(2 ** 53 - 1))), 'its counts are shown nowhere')
  t.ok(lines.includes(`  (1 left out, counts that are not the runs they cite: ${liar}; exp fsck names them)`), lines.join('\n'))
  t.equal(one!.inconsistent, undefined)
})
