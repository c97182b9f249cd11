import type {VerdictBody} from '../records/types.js'
import type {Contract} from '../contracts/types.js'
import {gain} from '../contracts/types.js'
import {pairedTTest, round6 as r6} from '../evals/stats/index.js'

export interface SplitSummary {
  repetitions: number
  valid: number
  failed: number
  /** repetitions that gave no trustworthy number and may be resumed */
  needs_retry: {repetition: number; stop_reason: string; action: string}[]
  mean?: number
  baseline_mean?: number
  gain?: number
  /** one-sided paired t-test over repetitions valid on both sides (same seeds) */
  paired?: {n: number; mean: number; t: number; p: number}
  outcome: 'positive' | 'neutral' | 'negative' | 'invalid' | 'needs_retry'
  reason: string
}


/** The violations only a boundary check writes, as verdicts before `invalid_kind` spelled them. */
const LEGACY_BOUNDARY = /^(protected path changed|outside the editable scope|not a regular file \(a symbolic link or submodule\)): /

/**
 * Whether a verdict records that its attempt crossed the contract's boundary: its
 * `invalid_kind`, or — for a verdict written before that field — a verdict that is neither
 * valid nor needs_retry whose violations are all of the boundary check's own wording (an
 * evaluator's output, quoted in a needs_retry violation, can never make it one).
 */
export function crossedBoundary(v: Pick<VerdictBody, 'valid' | 'invalid_kind' | 'needs_retry' | 'violations'>): boolean {
  if (v.invalid_kind) return v.invalid_kind === 'boundary'
  return !v.valid && !v.needs_retry && v.violations.length > 0 && v.violations.every(x => LEGACY_BOUNDARY.test(x))
}

/**
 * What one split says about an attempt (pure): the mean of its valid repetitions against
 * the baseline's, the paired test when there are several, and an outcome — positive only
 * beyond the margin and, with repetitions, at the contract's significance.
 */
export function summarizeSplit(contract: Contract, verdicts: readonly {body: VerdictBody}[], baseline: readonly {body: VerdictBody}[], baselineValue?: number): SplitSummary {
  // every repetition the contract asks for counts: one never run (the evaluation stopped, or a
  // decision cites fewer) is one that gave no number, not one left out of the mean
  const split = verdicts[0]?.body.split
  const asked = split === 'holdout' ? contract.holdout_eval.repetitions : split === 'dev' ? contract.dev_eval.repetitions : 0
  const reps = Math.max(verdicts.length, asked)
  const ok = verdicts.filter(v => v.body.valid && v.body.metric)
  const failed = reps - ok.length
  const notRun = reps - verdicts.length
  const needs = verdicts.filter(v => v.body.needs_retry).map(v => ({repetition: v.body.repetition, stop_reason: v.body.needs_retry!.stop_reason, action: v.body.needs_retry!.resume.action}))
  const base: SplitSummary = {repetitions: reps, valid: ok.length, failed, needs_retry: needs, outcome: 'invalid', reason: ''}
  if (verdicts.some(v => crossedBoundary(v.body))) return {...base, reason: 'the attempt crossed its contract\'s boundary'}
  if (failed > contract.validity.max_failed_repetitions || !ok.length) {
    const resumable = needs.some(n => n.action !== 'abandon')
    // (which ran without a number, and why, apart from those never run: "5 of 5 … (timeout) (4
    // not run)" read as five timeouts)
    const ranBad = verdicts.length - ok.length
    const why = [ranBad ? `${ranBad} ran without one${needs.length ? ` (${[...new Set(needs.map(n => n.stop_reason))].join(', ')})` : ''}` : '', notRun ? `${notRun} not run` : ''].filter(Boolean).join(', ')
    return {...base, outcome: resumable ? 'needs_retry' : 'invalid', reason: `${failed} of ${reps} repetition(s) gave no valid ${contract.metric.name}${why ? `: ${why}` : ''}`}
  }
  const bok = baseline.filter(v => v.body.valid && v.body.metric)
  // against the baseline's repetitions of the same seeds, valid on both sides: a mean over the
  // attempt's valid ones against one over all of the baseline's compared other seeds' noise
  const both = baselineValue !== undefined ? ok : ok.filter(v => bok.some(b => b.body.repetition === v.body.repetition))
  const of = (vs: readonly {body: VerdictBody}[]) => r6(vs.reduce((s, v) => s + v.body.metric!.value, 0) / vs.length)
  if (!both.length) return {...base, mean: of(ok), outcome: 'neutral', reason: 'no valid baseline repetition to compare with'}
  const mean = of(both)
  const baselineMean = baselineValue ?? of(both.map(v => bok.find(b => b.body.repetition === v.body.repetition)!))
  const g = r6(gain(contract, mean, baselineMean))
  const diffs = both.flatMap(v => {
    if (baselineValue !== undefined) return [gain(contract, v.body.metric!.value, baselineValue)]
    const b = bok.find(x => x.body.repetition === v.body.repetition)
    return b ? [gain(contract, v.body.metric!.value, b.body.metric!.value)] : []
  })
  const paired = diffs.length > 1 ? pairedTTest(diffs.map(d => d - contract.metric.margin)) : undefined
  // (several repetitions asked for and fewer than two to test: no significance, so no gain)
  const significant = paired ? paired.p < contract.promotion.paired_alpha : asked <= 1
  const outcome = g > contract.metric.margin && significant ? 'positive' : g < -contract.metric.margin ? 'negative' : 'neutral'
  const p = paired ? `, paired p ${paired.p.toFixed(3)} over ${paired.n}` : ''
  return {...base, mean, baseline_mean: baselineMean, gain: g, ...(paired ? {paired: {n: paired.n, mean: r6(paired.mean), t: r6(paired.t), p: r6(paired.p)}} : {}), outcome, reason: `${contract.metric.name} ${baselineMean} -> ${mean} (${g >= 0 ? '+' : ''}${g}, margin ${contract.metric.margin}${p})`}
}
