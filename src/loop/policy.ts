import type {PromotionPolicy, EvaluationBody, ScoreVector} from '../records/types.js'
import type {Comparison} from '../evals/compare.js'

export interface Check {
  name: string
  passed: boolean
  detail: string
}

export interface PolicyInput {
  /** validation: the candidate's evaluation (with its comparison) and the baseline's */
  candidate: EvaluationBody & {comparison: Comparison}
  baseline: EvaluationBody
  /** held-out, when it has been looked at */
  holdout?: {candidate: EvaluationBody; baseline: EvaluationBody}
  /** who reviewed and approved this candidate (exp gate --approved-by); the automatic loop never sets it */
  approvedBy?: string
}

const COST_DIMS: (keyof ScoreVector)[] = ['violations', 'tool_calls', 'errors', 'tokens', 'latency_ms', 'trajectory_length']
const pct = (x: number) => `${(x * 100).toFixed(1)}%`

/** The validation part of the policy: success, regressions, every cost dimension against its tolerance. */
export function validationChecks(p: PromotionPolicy, i: PolicyInput): Check[] {
  const checks: Check[] = []
  const c = i.candidate
  const b = i.baseline
  const minDelta = p.success?.min_delta ?? 0
  if (p.success?.must_improve ?? true) {
    const delta = c.success_rate - b.success_rate
    const shown = `validation ${pct(b.success_rate)} -> ${pct(c.success_rate)} (${delta >= 0 ? '+' : ''}${(delta * 100).toFixed(1)} points`
    // allow_neutral: a candidate that is not worse (a rewording, or any change once validation
    // is saturated) passes when a reviewer approved it; without an approval it still has to improve
    const neutral = delta <= minDelta && delta >= -1e-9 && p.success?.allow_neutral === true
    if (neutral && i.approvedBy) checks.push({name: 'success improves', passed: true, detail: `${shown}: not worse, accepted as neutral, approved by ${i.approvedBy}; allow_neutral)`})
    else checks.push({name: 'success improves', passed: delta > minDelta, detail: `${shown}, needs > ${(minDelta * 100).toFixed(1)}${neutral ? '; not worse: an approving review would accept it (allow_neutral)' : ''})`})
  }
  const maxReg = p.regressions?.max ?? 0
  const reg = c.comparison.regressions.length
  checks.push({name: 'regressions', passed: reg <= maxReg, detail: `${reg} scenario(s) passed before and fail now (allowed ${maxReg})${reg ? `: ${c.comparison.regressions.map(r => r.scenario).join(', ')}` : ''}`})
  for (const dim of COST_DIMS) {
    const tol = p.tolerances?.[dim as keyof NonNullable<PromotionPolicy['tolerances']>]
    if (tol === undefined) continue
    const before = b.scores[dim]
    const after = c.scores[dim]
    const limit = before * (1 + tol)
    const passed = after <= limit + 1e-9
    checks.push({name: `${dim} within tolerance`, passed, detail: `${fmt(before)} -> ${fmt(after)} (allowed up to +${(tol * 100).toFixed(0)}%: ${fmt(limit)})`})
  }
  return checks
}

/** The held-out part: required, and not worse than the current skill beyond the tolerance. */
export function holdoutChecks(p: PromotionPolicy, i: PolicyInput): Check[] {
  if (!(p.holdout?.required ?? true)) return []
  if (!i.holdout) return [{name: 'held-out evaluated', passed: false, detail: 'the held-out split has not been evaluated'}]
  const checks: Check[] = [{name: 'held-out evaluated', passed: true, detail: `holdout ${pct(i.holdout.baseline.success_rate)} -> ${pct(i.holdout.candidate.success_rate)}`}]
  if (p.holdout?.must_not_worsen ?? true) {
    const tol = p.holdout?.tolerance ?? 0
    const delta = i.holdout.candidate.success_rate - i.holdout.baseline.success_rate
    checks.push({name: 'held-out does not get worse', passed: delta >= -tol - 1e-9, detail: `${(delta * 100).toFixed(1)} points (allowed down to -${(tol * 100).toFixed(1)})`})
  }
  return checks
}

export function verdictOf(checks: readonly Check[]): {verdict: 'accept' | 'reject'; reasons: string[]} {
  const failed = checks.filter(c => !c.passed)
  return failed.length ? {verdict: 'reject', reasons: failed.map(c => `${c.name}: ${c.detail}`)} : {verdict: 'accept', reasons: checks.map(c => `${c.name}: ${c.detail}`)}
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2)
}
