import type {EvaluationBody, ScoreVector, VerificationBody} from '../../records/types.js'
import {wilson, meanPassHatK, meanPassAtK, meanScoreVector} from '../stats/index.js'
import {isInfrastructure} from '../../agents/invalid.js'
import {digestOf} from '../../records/digest.js'
import {sealedScenarioId} from '../../scenarios/sealed.js'

export interface VerifiedEpisode {
  id: string
  /** the record digest of the verification (pinned by the evaluation's evidence digest) */
  digest: string
  body: VerificationBody
}

/** The evaluation's commitment to the exact verifications it was computed from. */
export function evidenceOf(vs: readonly Pick<VerifiedEpisode, 'id' | 'digest'>[]): {verifications: number; digest: string} {
  const lines = vs.map(v => `${v.id} ${v.digest}`).sort()
  return {verifications: vs.length, digest: digestOf(lines)}
}

const ZERO: ScoreVector = {success: 0, violations: 0, tool_calls: 0, errors: 0, tokens: 0, latency_ms: 0, trajectory_length: 0}

/**
 * The evaluation summary of a set of verifications (pure). Success rate and its Wilson
 * interval are over *valid* episodes; infrastructure failures (invalid) are counted apart.
 */
export function summarize(vs: readonly VerifiedEpisode[], base: Pick<EvaluationBody, 'manifest' | 'split' | 'skill' | 'agent'> & Partial<EvaluationBody>, repeat: number): EvaluationBody {
  const valid = vs.filter(v => v.body.valid)
  const passed = valid.filter(v => v.body.passed).length
  const invalid = vs.length - valid.length
  const byScenario = new Map<string, VerifiedEpisode[]>()
  for (const v of vs) byScenario.set(v.body.scenario, [...(byScenario.get(v.body.scenario) ?? []), v])
  const per = [...byScenario.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([scenario, list]) => {
    const failed = new Set<string>()
    for (const v of list) {
      for (const i of v.body.invariants) if (!i.passed) failed.add(i.id)
      for (const c of v.body.constraint_violations) failed.add(`constraint:${c.constraint}`)
    }
    return {
      scenario,
      runs: list.length,
      passes: list.filter(v => v.body.valid && v.body.passed).length,
      invalid: list.filter(v => !v.body.valid).length,
      failed_invariants: [...failed].sort(),
      verifications: list.map(v => v.id).sort(),
    }
  })
  const {low: lo, high: hi} = valid.length ? wilson(passed, valid.length) : {low: 0, high: 0}
  const body: EvaluationBody = {
    ...base,
    total: vs.length,
    passed,
    failed: valid.length - passed,
    invalid,
    // infrastructure failures counted apart from the agent's own invalid episodes
    ...(invalid ? {infrastructure: vs.filter(v => !v.body.valid && isInfrastructure(v.body.invalid_reason)).length} : {}),
    success_rate: valid.length ? passed / valid.length : 0,
    ci: [round(lo), round(hi)],
    ci_method: 'wilson',
    repeat,
    per_scenario: per,
    scores: valid.length ? roundScores(meanScoreVector(valid.map(v => v.body.scores as unknown as Record<string, number>)) as unknown as ScoreVector) : ZERO,
  }
  if (repeat > 1) {
    const counts = per.map(p => ({n: p.runs - p.invalid, c: p.passes})).filter(x => x.n >= repeat)
    if (counts.length) {
      body.pass_hat_k = round(meanPassHatK(counts, repeat))
      body.pass_at_k = round(meanPassAtK(counts, repeat))
    }
  }
  return body
}

/**
 * The public face of a held-out evaluation: aggregates only, no private cites. With the
 * sealed split's key, per-scenario counts stay, each scenario named by a keyed hash
 * (stable for one key, so runs can still be paired; never the id itself).
 */
export function publicAggregate(full: EvaluationBody, key?: Buffer): EvaluationBody {
  const {per_scenario: per, ...rest} = full
  if (!key) return {...rest, per_scenario: []}
  const hashed = per.map(p => ({scenario: sealedScenarioId(key, p.scenario), runs: p.runs, passes: p.passes, invalid: p.invalid})).sort((a, b) => (a.scenario < b.scenario ? -1 : 1))
  return {...rest, per_scenario: hashed, sealed: {scenario_ids: 'keyed-hash'}}
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6
}

function roundScores(s: ScoreVector): ScoreVector {
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, round(v)])) as unknown as ScoreVector
}
