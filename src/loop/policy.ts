import type {Check, PromotionPolicy, EvaluationBody, ScoreVector} from '../records/types.js'
import type {Comparison} from '../evals/compare.js'
import {lookLevel, meanPassHatK, mcnemarOneSided, type Spending} from '../evals/stats/index.js'
import {pct} from '../reports/format.js'

export type {Check}

export interface PolicyInput {
  /** validation: the candidate's evaluation (with its comparison) and the baseline's */
  candidate: EvaluationBody & {comparison: Comparison}
  baseline: EvaluationBody
  /** held-out, when it has been looked at */
  holdout?: {candidate: EvaluationBody; baseline: EvaluationBody}
  /** who reviewed and approved this candidate (exp gate --approved-by); the automatic loop never sets it */
  approvedBy?: string
}

/**
 * A policy file of either version, read into one shape (docs/loop.md, "The policy"):
 * version 1 has margins, `regressions.max`, tolerances and held-out; version 2 adds the
 * statistical rules of `require` (and moves the regression limit there) and the sequential
 * design. Nothing else in the code reads the version.
 */
export interface PolicyRules {
  mustImprove: boolean
  minDelta: number
  allowNeutral: boolean
  maxRegressions: number
  regressionsRule: string
  mcnemarPMax?: number
  bootstrapCiLowMin?: number
  passK?: {k: number; min: number}
  minPairedN?: number
  /** most more episodes without a verdict on the candidate side than on the current skill's (validation and held-out) */
  maxInvalidIncrease?: number
  /** passes over the validation split at most, and how the McNemar error is spent across them */
  sequential?: {looks: number; spending: Spending}
}

export function rulesOf(p: PromotionPolicy): PolicyRules {
  const r = p.require ?? {}
  const v2 = p.version === '2'
  return {
    mustImprove: p.success?.must_improve ?? true,
    minDelta: p.success?.min_delta ?? 0,
    allowNeutral: p.success?.allow_neutral === true,
    maxRegressions: r.max_regressions ?? p.regressions?.max ?? 0,
    regressionsRule: v2 ? 'require.max_regressions' : 'regressions.max',
    ...(r.mcnemar_p_max !== undefined ? {mcnemarPMax: r.mcnemar_p_max} : {}),
    ...(r.bootstrap_ci_low_min !== undefined ? {bootstrapCiLowMin: r.bootstrap_ci_low_min} : {}),
    ...(r.pass_k ? {passK: r.pass_k} : {}),
    ...(r.min_paired_n !== undefined ? {minPairedN: r.min_paired_n} : {}),
    ...(r.max_invalid_increase !== undefined ? {maxInvalidIncrease: r.max_invalid_increase} : {}),
    ...(p.sequential ? {sequential: {looks: p.sequential.looks, spending: p.sequential.spending ?? 'pocock'}} : {}),
  }
}

/** How many passes over the split the validation may take (1: a fixed-size evaluation). */
export function looksOf(p: PromotionPolicy): number {
  return rulesOf(p).sequential?.looks ?? 1
}

const COST_DIMS: (keyof ScoreVector)[] = ['violations', 'tool_calls', 'errors', 'tokens', 'latency_ms', 'trajectory_length']
const p4 = (x: number) => (x >= 0.0001 || x === 0 ? x.toFixed(4) : x.toExponential(2))

/**
 * Which pass over the split an evaluation stopped at: the most runs any scenario had. It is
 * read from the per-scenario counts, which recompute from the verifications cited, so a
 * decision at a pass can be checked again from its evidence alone.
 */
export function lookOf(e: EvaluationBody): number {
  const runs = e.per_scenario.map(s => s.runs)
  return runs.length ? Math.max(...runs) : (e.repeat ?? 1)
}

/** The McNemar rule: one-sided exact p of the discordant pairs, against the level this look may spend. */
function mcnemarCheck(r: PolicyRules, c: EvaluationBody & {comparison: Comparison}): Check {
  const {wins, losses} = c.comparison
  const p = mcnemarOneSided(wins, losses)
  const look = lookOf(c)
  const looks = r.sequential?.looks ?? 1
  const level = r.sequential ? lookLevel(r.mcnemarPMax!, look, looks, r.sequential.spending) : r.mcnemarPMax!
  const where = r.sequential ? `at pass ${look} of ${looks}, ${r.sequential.spending} spending of ${r.mcnemarPMax}` : 'a fixed-size evaluation'
  return {
    name: 'mcnemar_p_max',
    rule: 'require.mcnemar_p_max',
    passed: p <= level,
    detail: `one-sided exact McNemar p = ${p4(p)} (${wins} win(s), ${losses} loss(es)), needs <= ${p4(level)} (${where})`,
    values: {p, level, look, looks, wins, losses},
  }
}

/**
 * The validation part of the policy, in a fixed order: the statistical rules of version 2
 * (paired pairs, McNemar, bootstrap, pass^k), success against its margin, regressions,
 * then every cost dimension against its tolerance.
 */
export function validationChecks(p: PromotionPolicy, i: PolicyInput): Check[] {
  const r = rulesOf(p)
  const checks: Check[] = []
  const c = i.candidate
  const b = i.baseline
  const cmp = c.comparison
  const pairs = cmp.wins + cmp.losses + cmp.ties
  const delta = c.success_rate - b.success_rate
  // allow_neutral: a candidate that is not worse (a rewording, or any change once validation
  // is saturated) passes when a reviewer approved it; without an approval it still has to improve
  const neutral = delta <= r.minDelta && delta >= -1e-9 && r.allowNeutral
  const approved = neutral && !!i.approvedBy
  // the tests of "is it better?" yield to that approval as the success margin does; the other
  // rules (pairs, pass^k, regressions, costs) still hold for a neutral change
  const improvement = (x: Check): Check => (approved ? {...x, passed: true, detail: `${x.detail}; waived: not worse, approved by ${i.approvedBy} (allow_neutral)`} : neutral && !x.passed ? {...x, detail: `${x.detail}; not worse: an approving review would waive it (allow_neutral)`} : x)
  if (r.minPairedN !== undefined) checks.push({name: 'min_paired_n', rule: 'require.min_paired_n', passed: pairs >= r.minPairedN, detail: `${pairs} paired episode(s) with both sides valid, needs >= ${r.minPairedN}`, values: {pairs, min: r.minPairedN}})
  if (r.mcnemarPMax !== undefined) checks.push(improvement(mcnemarCheck(r, c)))
  if (r.bootstrapCiLowMin !== undefined) {
    const [low, high] = cmp.bootstrap_ci
    checks.push(improvement({name: 'bootstrap_ci_low_min', rule: 'require.bootstrap_ci_low_min', passed: low >= r.bootstrapCiLowMin - 1e-9, detail: `paired bootstrap interval of the difference [${pct(low)}, ${pct(high)}], its lower bound needs >= ${pct(r.bootstrapCiLowMin)}`, values: {low, high, min: r.bootstrapCiLowMin}}))
  }
  if (r.passK) {
    const {k, min} = r.passK
    const counts = c.per_scenario.map(s => ({n: s.runs - s.invalid, c: s.passes})).filter(x => x.n >= k)
    const value = counts.length === c.per_scenario.length && counts.length ? meanPassHatK(counts, k) : undefined
    checks.push({name: 'pass_k', rule: 'require.pass_k', passed: value !== undefined && value >= min - 1e-9, detail: value === undefined ? `pass^${k} needs ${k} valid run(s) of every scenario; the candidate has ${lookOf(c)} pass(es)` : `candidate pass^${k} = ${pct(value)}, needs >= ${pct(min)}`, values: {k, min, ...(value !== undefined ? {value} : {})}})
  }
  if (r.mustImprove) {
    const shown = `validation ${pct(b.success_rate)} -> ${pct(c.success_rate)} (${delta >= 0 ? '+' : ''}${(delta * 100).toFixed(1)} points`
    const values = {baseline: b.success_rate, candidate: c.success_rate, delta, min_delta: r.minDelta}
    if (approved) checks.push({name: 'success improves', rule: 'success.allow_neutral', passed: true, detail: `${shown}: not worse, accepted as neutral, approved by ${i.approvedBy}; allow_neutral)`, values})
    else checks.push({name: 'success improves', rule: 'success.min_delta', passed: delta > r.minDelta, detail: `${shown}, needs > ${(r.minDelta * 100).toFixed(1)}${neutral ? '; not worse: an approving review would accept it (allow_neutral)' : ''})`, values})
  }
  if (r.maxInvalidIncrease !== undefined) checks.push(invalidCheck('invalid episodes', r.maxInvalidIncrease, b, c))
  const reg = cmp.regressions.length
  checks.push({name: 'regressions', rule: r.regressionsRule, passed: reg <= r.maxRegressions, detail: `${reg} scenario(s) passed before and fail now (allowed ${r.maxRegressions})${reg ? `: ${cmp.regressions.map(x => x.scenario).join(', ')}` : ''}`, values: {regressions: reg, max: r.maxRegressions}})
  for (const dim of COST_DIMS) {
    const tol = p.tolerances?.[dim as keyof NonNullable<PromotionPolicy['tolerances']>]
    if (tol === undefined) continue
    const before = b.scores[dim]
    const after = c.scores[dim]
    const limit = before * (1 + tol)
    const passed = after <= limit + 1e-9
    checks.push({name: `${dim} within tolerance`, rule: `tolerances.${dim}`, passed, detail: `${fmt(before)} -> ${fmt(after)} (allowed up to +${(tol * 100).toFixed(0)}%: ${fmt(limit)})`, values: {before, after, limit}})
  }
  return checks
}

/** The held-out part: required, and not worse than the current skill beyond the tolerance. */
export function holdoutChecks(p: PromotionPolicy, i: PolicyInput): Check[] {
  if (!(p.holdout?.required ?? true)) return []
  if (!i.holdout) return [{name: 'held-out evaluated', rule: 'holdout.required', passed: false, detail: 'the held-out split has not been evaluated'}]
  const checks: Check[] = [{name: 'held-out evaluated', rule: 'holdout.required', passed: true, detail: `holdout ${pct(i.holdout.baseline.success_rate)} -> ${pct(i.holdout.candidate.success_rate)}`}]
  if (p.holdout?.must_not_worsen ?? true) {
    const tol = p.holdout?.tolerance ?? 0
    const delta = i.holdout.candidate.success_rate - i.holdout.baseline.success_rate
    checks.push({name: 'held-out does not get worse', rule: 'holdout.must_not_worsen', passed: delta >= -tol - 1e-9, detail: `${(delta * 100).toFixed(1)} points (allowed down to -${(tol * 100).toFixed(1)})`, values: {baseline: i.holdout.baseline.success_rate, candidate: i.holdout.candidate.success_rate, delta, tolerance: tol}})
  }
  const most = rulesOf(p).maxInvalidIncrease
  if (most !== undefined) checks.push(invalidCheck('held-out invalid episodes', most, i.holdout.baseline, i.holdout.candidate))
  return checks
}

/**
 * Episodes without a verdict on the candidate side beyond the current skill's. Success rates
 * and paired wins count valid episodes only: a skill that has its agent give up (an error, the
 * step limit) where it would fail drops those failures from every other check.
 */
function invalidCheck(name: string, most: number, b: EvaluationBody, c: EvaluationBody): Check {
  const more = c.invalid - b.invalid
  return {name, rule: 'require.max_invalid_increase', passed: more <= most, detail: `${b.invalid} of ${b.total} -> ${c.invalid} of ${c.total} episode(s) without a verdict (an error, a crash, the step limit; allowed ${most} more)`, values: {baseline: b.invalid, candidate: c.invalid, max_increase: most}}
}

export interface Verdict {
  verdict: 'accept' | 'reject'
  reasons: string[]
  /** the check that decided: a reject's first failed one; an accept's statistical test (else the success margin) */
  decidedBy?: Check
}

export function verdictOf(checks: readonly Check[]): Verdict {
  const failed = checks.filter(c => !c.passed)
  if (failed.length) return {verdict: 'reject', reasons: failed.map(c => `${c.name}: ${c.detail}`), decidedBy: failed[0]}
  const neutral = checks.find(c => c.rule === 'success.allow_neutral')
  const decidedBy = neutral ?? checks.find(c => c.name === 'mcnemar_p_max') ?? checks.find(c => c.name === 'bootstrap_ci_low_min') ?? checks.find(c => c.name === 'success improves') ?? checks[0]
  return {verdict: 'accept', reasons: checks.map(c => `${c.name}: ${c.detail}`), ...(decidedBy ? {decidedBy} : {})}
}

/**
 * After a pass of a sequential validation: stop with the candidate through to held-out
 * (every validation check passes now), stop with a reject (the last pass, or futility), or
 * run another pass. Futility stops are non-binding — the McNemar level of each pass is set as
 * if the comparison always went on — so stopping early for futility never raises the chance
 * of a false accept; it only saves episodes (docs/loop.md, "Sequential validation"). A
 * candidate is futile when a regression limit is already exceeded (regressions only grow),
 * when it is not ahead (no more wins than losses, with a loss, or after two passes), or when
 * even winning every remaining pair could not reach the McNemar level of any later pass.
 */
export function afterPass(p: PromotionPolicy, i: PolicyInput, o: {look: number; scenarios: number}): {stop: boolean; why: string} {
  const r = rulesOf(p)
  const looks = r.sequential?.looks ?? 1
  const failed = validationChecks(p, i).filter(c => !c.passed)
  if (o.look >= looks) return {stop: true, why: failed.length ? `last pass (${looks}): ${failed[0]!.name} fails` : 'every validation check passes'}
  // without the McNemar rule no test spends its error across passes: all of them are run
  if (!failed.length && r.mcnemarPMax !== undefined) return {stop: true, why: `every validation check passes after pass ${o.look}`}
  const {wins, losses, regressions} = i.candidate.comparison
  if (regressions.length > r.maxRegressions) return {stop: true, why: `futile: ${regressions.length} regression(s), more than the ${r.maxRegressions} allowed, and regressions only grow`}
  // behind, or level with losses; a candidate that changed no outcome at all gets a second pass
  if (r.mcnemarPMax !== undefined && wins <= losses && (losses > 0 || o.look >= 2)) return {stop: true, why: `futile: not ahead after pass ${o.look} (${wins} win(s), ${losses} loss(es))`}
  if (r.mcnemarPMax !== undefined && r.sequential) {
    const seq = r.sequential
    const reachable = Array.from({length: looks - o.look}, (_, j) => o.look + 1 + j).some(look => mcnemarOneSided(wins + (look - o.look) * o.scenarios, losses) <= lookLevel(r.mcnemarPMax!, look, looks, seq.spending))
    if (!reachable) return {stop: true, why: 'futile: even winning every remaining pair could not reach the McNemar level'}
  }
  return {stop: false, why: failed.length ? `${failed[0]!.name} fails after pass ${o.look} of ${looks}: another pass` : `pass ${o.look} of ${looks}: the policy has no sequential test, every pass is run`}
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2)
}
