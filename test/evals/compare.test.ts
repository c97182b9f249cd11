import t from 'tap'
import {compareRuns} from '../../src/evals/compare.js'
import type {VerifiedEpisode} from '../../src/evals/runner/summary.js'
import type {VerificationBody} from '../../src/records/types.js'

const DIG = 'sha256:' + '7'.repeat(64)

/** One verified episode of a scenario and repetition, passed or not. */
function ep(scenario: string, repetition: number, passed: boolean): VerifiedEpisode {
  const body = {
    trace: `tr-${'1'.repeat(24)}`, trace_digest: DIG, manifest: `mf-${'2'.repeat(24)}`, scenario, repetition, split: 'validation', grader: {version: 'g1', digest: DIG}, valid: true, passed,
    outcome: passed ? 'positive' : 'negative', invariants: [{id: 'goal', passed, message: passed ? 'ok' : 'not reached'}], collateral: [], constraint_violations: [],
    scores: {success: passed ? 1 : 0, violations: 0, tool_calls: 3, errors: 0, tokens: 0, latency_ms: 0, trajectory_length: 3},
  } as unknown as VerificationBody
  return {id: `vr-${scenario}-${repetition}`, digest: DIG, body}
}

/** Episodes from a pattern per scenario: 'P' passed, 'f' failed, one letter per repetition. */
const eps = (spec: Record<string, string>) => Object.entries(spec).flatMap(([s, p]) => [...p].map((c, r) => ep(s, r, c === 'P')))

t.test('a scenario regresses when the candidate passed fewer of its pairs than the base did', async t => {
  const base = eps({a: 'PPP', b: 'Pff', c: 'fff'})
  // a: one lost pair, nothing won back; b: one lost pair and one won (a slip, not a break); c: two won
  const cand = eps({a: 'PPf', b: 'fPf', c: 'PPf'})
  const cmp = compareRuns(`el-${'3'.repeat(24)}`, base, cand)
  t.equal(cmp.wins, 3)
  t.equal(cmp.losses, 2)
  t.same(cmp.regressions.map(r => r.scenario), ['a'], 'only the scenario passed less often regresses')
  t.same(cmp.regressions[0]!.invariants, ['goal'], 'with the invariant that broke')
})

t.test('a scenario the candidate passes as often as the base, with pairs lost and won, is no regression', async t => {
  const cmp = compareRuns(`el-${'3'.repeat(24)}`, eps({a: 'PfPf'}), eps({a: 'fPfP'}))
  t.equal(cmp.losses, 2)
  t.same(cmp.regressions, [])
})
