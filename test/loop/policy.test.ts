import t from 'tap'
import {validationChecks, holdoutChecks, verdictOf} from '../../src/loop/policy.js'
import type {PromotionPolicy} from '../../src/records/types.js'
import {evaluation} from '../helpers/loop.js'

const POLICY: PromotionPolicy = {version: '1', success: {must_improve: true, min_delta: 0}, regressions: {max: 0}, tolerances: {violations: 0, tool_calls: 0.25, tokens: 0.25, latency_ms: 0.25}, holdout: {required: true, must_not_worsen: true, tolerance: 0}}
const decide = (candidate: ReturnType<typeof evaluation>, baseline: ReturnType<typeof evaluation>, holdout?: [number, number]) => {
  const input = {candidate, baseline, ...(holdout ? {holdout: {baseline: evaluation(holdout[0]), candidate: evaluation(holdout[1])}} : {})}
  return verdictOf([...validationChecks(POLICY, input), ...holdoutChecks(POLICY, input)])
}

t.test('accepts an improvement with no regression, costs within tolerance and held-out no worse', async t => {
  const r = decide(evaluation(0.6, {tool_calls: 6}), evaluation(0.5), [0.5, 0.55])
  t.equal(r.verdict, 'accept', r.reasons.join('; '))
})

t.test('rejects a regression even when success improves', async t => {
  const r = decide(evaluation(0.7, {}, {regressions: [{scenario: 'val-a', invariants: ['escalated']}]}), evaluation(0.5), [0.5, 0.6])
  t.equal(r.verdict, 'reject')
  t.match(r.reasons.join('\n'), /regressions: 1 scenario\(s\) passed before and fail now \(allowed 0\): val-a/)
})

t.test('rejects tool-call bloat beyond the tolerance: it never collapses to one scalar', async t => {
  const r = decide(evaluation(0.8, {tool_calls: 5 * 1.3}), evaluation(0.5), [0.5, 0.7])
  t.equal(r.verdict, 'reject')
  t.match(r.reasons.join('\n'), /tool_calls within tolerance: 5 -> 6.50 \(allowed up to \+25%: 6.25\)/)
})

t.test('rejects no improvement, more violations, a worse or missing held-out', async t => {
  t.equal(decide(evaluation(0.5), evaluation(0.5), [0.5, 0.5]).verdict, 'reject', 'equal is not better')
  t.match(decide(evaluation(0.6, {violations: 0.3}), evaluation(0.5), [0.5, 0.5]).reasons.join(), /violations within tolerance/)
  t.match(decide(evaluation(0.6), evaluation(0.5), [0.6, 0.55]).reasons.join(), /held-out does not get worse: -5.0 points/)
  t.match(decide(evaluation(0.6), evaluation(0.5)).reasons.join(), /held-out evaluated: the held-out split has not been evaluated/)
})

t.test('the policy is data: loosened limits change the verdict', async t => {
  const loose: PromotionPolicy = {...POLICY, regressions: {max: 1}, tolerances: {tool_calls: 0.5}}
  const input = {candidate: evaluation(0.7, {tool_calls: 6.5}, {regressions: [{scenario: 'val-a', invariants: []}]}), baseline: evaluation(0.5), holdout: {baseline: evaluation(0.5), candidate: evaluation(0.6)}}
  t.equal(verdictOf([...validationChecks(loose, input), ...holdoutChecks(loose, input)]).verdict, 'accept')
})
