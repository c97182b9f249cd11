import type {EvaluationBody, ScoreVector} from '../records/types.js'
import {mcnemarExact, pairedBootstrapDiff, round6 as r6, seededRandom} from './stats/index.js'
import type {VerifiedEpisode} from './runner/summary.js'
import {summarize} from './runner/summary.js'

export type Comparison = NonNullable<EvaluationBody['comparison']>

export const BOOTSTRAP = {resamples: 2000, seed: 20261130, level: 0.95}

const ok = (v: VerifiedEpisode) => v.body.valid && v.body.passed

/**
 * The paired comparison of a candidate against the current skill on the same scenarios
 * and seeds (pure): wins / losses / ties over (scenario, repetition) pairs, the exact
 * McNemar p on the discordant pairs, a paired bootstrap CI of the difference in success
 * over scenarios (seeded), the regressions with the invariants that broke, and both score
 * vectors side by side. Pairs with an invalid side are left out. A scenario regresses when the
 * candidate passed fewer of its pairs than the base did (passed before, fails now, net of the
 * pairs it won there): with repeated episodes one lost pair next to a won one is a slip of
 * the agent, not a scenario the change broke (docs/loop.md).
 */
export function compareRuns(baselineEvaluation: string, baseline: readonly VerifiedEpisode[], candidate: readonly VerifiedEpisode[]): Comparison {
  const key = (v: VerifiedEpisode) => `${v.body.scenario}\u0000${v.body.repetition ?? 0}`
  const base = new Map(baseline.map(v => [key(v), v]))
  let wins = 0
  let losses = 0
  let ties = 0
  const regress = new Map<string, Set<string>>()
  const perScenario = new Map<string, {a: number; b: number; n: number}>()
  for (const c of candidate) {
    const b = base.get(key(c))
    if (!b || !b.body.valid || !c.body.valid) continue
    const before = ok(b)
    const after = ok(c)
    if (after && !before) wins++
    else if (before && !after) {
      losses++
      const broken = regress.get(c.body.scenario) ?? new Set<string>()
      for (const i of c.body.invariants) if (!i.passed) broken.add(i.id)
      for (const v of c.body.constraint_violations) broken.add(`constraint:${v.constraint}`)
      regress.set(c.body.scenario, broken)
    } else ties++
    const s = perScenario.get(c.body.scenario) ?? {a: 0, b: 0, n: 0}
    s.a += Number(before)
    s.b += Number(after)
    s.n++
    perScenario.set(c.body.scenario, s)
  }
  // net per scenario: a scenario whose lost pairs its won pairs make up for did not regress
  for (const s of [...regress.keys()]) if (perScenario.get(s)!.b >= perScenario.get(s)!.a) regress.delete(s)
  const scen = [...perScenario.keys()].sort()
  const a = scen.map(s => perScenario.get(s)!.a / perScenario.get(s)!.n)
  const b = scen.map(s => perScenario.get(s)!.b / perScenario.get(s)!.n)
  const boot = scen.length ? pairedBootstrapDiff(a, b, {random: seededRandom(BOOTSTRAP.seed), resamples: BOOTSTRAP.resamples, level: BOOTSTRAP.level}) : {estimate: 0, low: 0, high: 0}
  const pairs = wins + losses + ties
  return {
    baseline: baselineEvaluation,
    wins,
    losses,
    ties,
    mcnemar_p: r6(mcnemarExact(wins, losses).pValue),
    diff: r6(pairs ? (wins - losses) / pairs : 0),
    bootstrap_ci: [r6(boot.low), r6(boot.high)],
    bootstrap: {resamples: BOOTSTRAP.resamples, seed: BOOTSTRAP.seed, level: BOOTSTRAP.level},
    regressions: [...regress.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1)).map(([scenario, inv]) => ({scenario, invariants: [...inv].sort(), message: `passed before, fails now: ${[...inv].sort().join(', ') || 'no invariant named'}`})),
    scores_baseline: scoresOf(baseline),
    scores_candidate: scoresOf(candidate),
  }
}

function scoresOf(vs: readonly VerifiedEpisode[]): ScoreVector {
  const base = {manifest: 'mf-000000000000000000000000', split: 'validation' as const, skill: {name: 'x', blob: '0'.repeat(40)}, agent: {name: 'x'}}
  return summarize(vs, base, 1).scores
}
