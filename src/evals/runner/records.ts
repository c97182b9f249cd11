import type {RecordDraft} from '../../records/index.js'
import type {AgentRef, ManifestBody, SkillRef, Split, TraceBody, VerificationBody} from '../../records/types.js'
import {prepare} from '../../records/index.js'
import {GRADER_DIGEST, GRADER_VERSION} from '../grader/version.js'
import type {EpisodeResult} from '../episode.js'

/** Idempotency keys: an episode is (manifest, scenario, repetition), whatever lane or time. */
export function episodeKey(manifest: string, scenario: string, repetition: number): string {
  return `${manifest}/${scenario}/${repetition}`
}

/** A rerun of an episode that failed for infrastructure reasons is a new attempt with its own ids (src/evals/runner/attempts.ts). */
export function attemptKey(key: string, attempt: number): string {
  return attempt ? `${key}/retry-${attempt}` : key
}

export function manifestDraft(body: ManifestBody): RecordDraft<'manifest'> {
  return {kind: 'manifest', body}
}

/** The trace and the grader's verification of one episode, ready to append. */
export function episodeDrafts(r: EpisodeResult, o: {manifest: string; agent: AgentRef; skill: SkillRef; wallMs?: number; attempt?: number}): {trace: RecordDraft<'trace'>; verification: RecordDraft<'verification'>; traceId: string} {
  const key = attemptKey(episodeKey(o.manifest, r.scenario, r.repetition), o.attempt ?? 0)
  const body: TraceBody = {
    manifest: o.manifest,
    scenario: r.scenario,
    split: r.split,
    workflows: r.workflows,
    repetition: r.repetition,
    seed: r.seed,
    task: r.task,
    agent: o.agent,
    skill: o.skill,
    messages: r.messages as TraceBody['messages'],
    actions: r.actions as TraceBody['actions'],
    final_answer: r.final_answer,
    usage: r.usage,
    status: r.status,
    state_initial: r.state_initial,
    state_final: r.state_final,
  }
  if (r.invalid_reason !== undefined) body.invalid_reason = r.invalid_reason
  const trace: RecordDraft<'trace'> = {kind: 'trace', key, body, cites: [o.manifest], ...(o.wallMs === undefined ? {} : {volatile: {wall_ms: Math.round(o.wallMs)}})}
  const {id: traceId, digest: traceDigest} = prepare(trace)
  const v = r.verdict
  const vb: VerificationBody = {
    trace: traceId,
    trace_digest: traceDigest,
    manifest: o.manifest,
    scenario: r.scenario,
    split: r.split,
    repetition: r.repetition,
    grader: {version: GRADER_VERSION, digest: GRADER_DIGEST},
    valid: v.valid,
    passed: v.passed,
    outcome: v.outcome,
    invariants: v.invariants,
    collateral: v.collateral,
    constraint_violations: v.constraint_violations,
    scores: v.scores,
  }
  if (v.invalid_reason !== undefined) vb.invalid_reason = v.invalid_reason
  return {trace, traceId, verification: {kind: 'verification', key: `${key}/verification`, body: vb, cites: [traceId, o.manifest]}}
}

export function isSplit(s: string): s is Split {
  return s === 'train' || s === 'validation' || s === 'holdout'
}
