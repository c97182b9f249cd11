import {compareRuns, type Comparison} from '../../evals/compare.js'
import type {VerifiedEpisode} from '../../evals/runner/summary.js'
import type {Arm} from './arms.js'
import {pct} from '../../reports/format.js'

/** The significance level of the verdicts (two-sided exact McNemar on the discordant pairs). */
export const ALPHA = 0.05

export interface ArmEpisodes {
  arm: Arm
  success: number
  ci: [number, number]
  total: number
  evaluation: string
  verified: readonly VerifiedEpisode[]
}

/** `a` against `b` on the same held-out episodes (scenario, repetition): wins are episodes `a` passed and `b` failed. */
export interface PairTest {
  a: Arm
  b: Arm
  pairs: number
  wins: number
  losses: number
  ties: number
  /** mean paired difference in success, a − b */
  diff: number
  mcnemar_p: number
  /** paired bootstrap 95% interval of the difference over scenarios */
  bootstrap_ci: [number, number]
}

export type Verdict = 'supported' | 'not supported' | 'contradicted' | 'not tested'

export interface HypothesisVerdict {
  id: 'H1' | 'H2' | 'H3'
  statement: string
  /** the test it rests on: arm `a` should beat arm `b` */
  test: {a: Arm; b: Arm}
  verdict: Verdict
  evidence: string
}

function pairOf(a: ArmEpisodes, b: ArmEpisodes): PairTest {
  const c: Comparison = compareRuns(b.evaluation, b.verified, a.verified)
  return {a: a.arm, b: b.arm, pairs: c.wins + c.losses + c.ties, wins: c.wins, losses: c.losses, ties: c.ties, diff: c.diff, mcnemar_p: c.mcnemar_p, bootstrap_ci: c.bootstrap_ci as [number, number]}
}

/** Every pair of arms, in the table's order (the earlier arm is `b`, the reference). */
export function pairwise(arms: readonly ArmEpisodes[]): PairTest[] {
  const out: PairTest[] = []
  for (let i = 0; i < arms.length; i++) for (let j = i + 1; j < arms.length; j++) out.push(pairOf(arms[j]!, arms[i]!))
  return out
}

const HYPOTHESES: {id: HypothesisVerdict['id']; statement: string; a: Arm; b: Arm}[] = [
  {id: 'H1', statement: 'structured persistent knowledge produces better skill proposals than raw trajectory history', a: 'compiler', b: 'trace2skill'},
  {id: 'H2', statement: 'evolved skills improve unseen-task performance', a: 'compiler', b: 'baseline'},
  {id: 'H3', statement: 'keeping knowledge unavailable to the execution agent (compiled into the skill) does better than recalling it into the agent\'s context', a: 'compiler', b: 'memory'},
]

const fmtP = (p: number) => (p < 0.0001 ? '< 0.0001' : p.toFixed(4))

/**
 * H1–H3 (docs/compare.md), each a one-sided claim that arm `a` beats arm `b` on held-out:
 * supported when a − b > 0 with McNemar p < 0.05, contradicted when a − b < 0 with p < 0.05,
 * not supported otherwise (no difference shown at this sample size), not tested when an arm
 * was not run. The evidence names both rates with their intervals and the paired test.
 */
export function hypotheses(arms: readonly ArmEpisodes[], pairs: readonly PairTest[]): HypothesisVerdict[] {
  return HYPOTHESES.map(h => {
    const a = arms.find(x => x.arm === h.a)
    const b = arms.find(x => x.arm === h.b)
    if (!a || !b) return {id: h.id, statement: h.statement, test: {a: h.a, b: h.b}, verdict: 'not tested', evidence: `arm ${!a ? h.a : h.b} was not run (--arms)`}
    const p = pairs.find(x => x.a === h.a && x.b === h.b) ?? invert(pairs.find(x => x.a === h.b && x.b === h.a)!)
    const verdict: Verdict = p.mcnemar_p < ALPHA && p.diff > 0 ? 'supported' : p.mcnemar_p < ALPHA && p.diff < 0 ? 'contradicted' : 'not supported'
    const evidence = `${h.a} ${pct(a.success)} [${pct(a.ci[0])}, ${pct(a.ci[1])}] vs ${h.b} ${pct(b.success)} [${pct(b.ci[0])}, ${pct(b.ci[1])}] on ${p.pairs} paired held-out episodes: ${p.wins} won, ${p.losses} lost, difference ${(p.diff * 100).toFixed(1)} points (paired bootstrap 95% CI [${(p.bootstrap_ci[0] * 100).toFixed(1)}, ${(p.bootstrap_ci[1] * 100).toFixed(1)}]), exact McNemar p ${fmtP(p.mcnemar_p)}${verdict === 'not supported' ? ` (not below ${ALPHA}, or no gain)` : ''}`
    return {id: h.id, statement: h.statement, test: {a: h.a, b: h.b}, verdict, evidence}
  })
}

function invert(p: PairTest): PairTest {
  return {...p, a: p.b, b: p.a, wins: p.losses, losses: p.wins, diff: -p.diff, bootstrap_ci: [-p.bootstrap_ci[1], -p.bootstrap_ci[0]]}
}
