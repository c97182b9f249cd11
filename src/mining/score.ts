import type {Rule} from '../knowledge/index.js'
import {wilson} from '../evals/stats/wilson.js'
import {round6 as round} from '../evals/stats/mean.js'
import {judge, speaksIn, type Context} from './judge.js'
import type {View} from './types.js'

/**
 * How a rule fared over the runs it applies to. Supporting runs are those whose outcome the
 * rule predicts (followed and passed, or violated and failed); counterexamples, those it does
 * not (followed and failed, or violated and passed).
 */
export interface Tally {
  followedPassed: string[]
  followedFailed: string[]
  violatedPassed: string[]
  violatedFailed: string[]
  supporting: string[]
  counterexamples: string[]
  /**
   * pass rate when followed minus pass rate when violated, compared within each task (runs of
   * one task, Mantel-Haenszel weights; tasks no run passed are left out) so that easy tasks do
   * not make a habit look useful;
   * undefined when no task has runs on both sides. The pooled difference is used instead
   * for rules about a situation (an error, a result, a state), whose trigger already selects
   * comparable runs, and when no task was run twice at all; never for a check, because
   * whether a run checks is a habit that tracks how careful the whole run is.
   */
  lift: number | undefined
  /** sum of the within-task weighted differences: how much contrast backs the lift */
  weight: number
  confidence: number
  /** set when the lift was judged on the runs that broke no other kept rule (rules.ts, explaining away) */
  residual?: {runs: number; lift: number}
}

export const CONFIDENCE_FORMULA = 'wilson_lower_95(support / (support + unexplained)), z = 1.96; support = supporting runs, unexplained = counterexamples nothing explains (all of them for a finding without a rule)'

/** The stated confidence of a claim: the 95% Wilson lower bound of its supporting share, against the counterexamples nothing explains. */
export function confidenceOf(support: number, failures: number): number {
  return round(wilson(support, support + failures, {z: 1.96}).low)
}

// stored numbers are rounded so that the same data always gives the same bytes
export {round}

interface Cell {
  fp: number
  ff: number
  vp: number
  vf: number
}

export function tally(rule: Rule, views: readonly View[], ctx: Context): Tally {
  const t = {followedPassed: [] as string[], followedFailed: [] as string[], violatedPassed: [] as string[], violatedFailed: [] as string[]}
  const byTask = new Map<string, Cell>()
  for (const v of speaksIn(rule, views, ctx)) {
    const verdict = judge(rule, v, ctx)
    if (!verdict) continue
    let cell = byTask.get(v.task)
    if (!cell) byTask.set(v.task, (cell = {fp: 0, ff: 0, vp: 0, vf: 0}))
    if (verdict === 'followed') (v.passed ? (cell.fp++, t.followedPassed) : (cell.ff++, t.followedFailed)).push(v.id)
    else (v.passed ? (cell.vp++, t.violatedPassed) : (cell.vf++, t.violatedFailed)).push(v.id)
  }
  const supporting = [...t.followedPassed, ...t.violatedFailed].sort()
  const counterexamples = [...t.followedFailed, ...t.violatedPassed].sort()
  const all = {fp: t.followedPassed.length, ff: t.followedFailed.length, vp: t.violatedPassed.length, vf: t.violatedFailed.length}
  const {lift, weight} = withinTasks([...byTask.values()], all, rule.kind === 'before' && ctx.repeated)
  return {...t, supporting, counterexamples, lift, weight, confidence: confidenceOf(supporting.length, counterexamples.length)}
}

/** Mantel-Haenszel risk difference over the tasks with runs on both sides. */
function withinTasks(cells: Cell[], all: Cell, strict: boolean): {lift: number | undefined; weight: number} {
  let num = 0
  let den = 0
  for (const c of cells) {
    const nf = c.fp + c.ff
    const nv = c.vp + c.vf
    // a task no run passed says nothing about any one rule: something else failed them all
    if (!nf || !nv || !(c.fp + c.vp)) continue
    const w = (nf * nv) / (nf + nv)
    num += w * (c.fp / nf - c.vp / nv)
    den += w
  }
  if (den > 0) return {lift: round(num / den), weight: round(num)}
  if (strict) return {lift: undefined, weight: 0}
  const nf = all.fp + all.ff
  const nv = all.vp + all.vf
  return {lift: nf && nv ? round(all.fp / nf - all.vp / nv) : undefined, weight: 0}
}

export interface Thresholds {
  minSupport: number
  minLift: number
  minFollowedPassed: number
}

export function passes(rule: Rule, t: Tally, o: Thresholds): boolean {
  if (t.supporting.length < o.minSupport || t.followedPassed.length < o.minFollowedPassed || t.lift === undefined || t.lift < o.minLift) return false
  // a call that passing runs make is not unnecessary: "never" without a condition must not be refuted by them
  if (rule.kind === 'never' && !rule.while && t.violatedPassed.length > UNNECESSARY_SLACK * (t.violatedPassed.length + t.violatedFailed.length)) return false
  return true
}

const UNNECESSARY_SLACK = 0.1
