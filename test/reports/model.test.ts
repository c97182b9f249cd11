import t from 'tap'
import {memoryHistory, OID, REASON} from '../helpers/report-ledger.js'
import {buildReport} from '../../src/reports/model.js'

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
  // the train run measured v1's blob, so it says nothing about v2: no training line for iteration 2
  t.match(two, {iteration: 2, skill: {version: 2}, patterns: [], validation: {baseline: 0.75, candidate: 0.7}, holdout: undefined, decision: {verdict: 'reject', reasons: [REASON]}, main_after: {version: 2, holdout: 0.7}})
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
