import type {RecordDraft} from '../../records/index.js'
import type {AgentRef, ManifestBody, SkillRef, Split, TraceBody, VerificationBody} from '../../records/types.js'
import {prepare} from '../../records/index.js'
import {GRADER_DIGEST, GRADER_VERSION} from '../grader/version.js'
import type {EpisodeResult} from '../episode.js'
import {WORLD_EVALUATOR} from '../evaluator/world.js'
import {taskMask} from './mask.js'

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

/**
 * A second key for an episode whose own key is taken by a record that does not stand
 * (forged, or judged by another evaluator): the honest lane records under its own salt
 * (records/identity.ts), so a bad record can neither be reused nor block the episode forever.
 */
export {laneKey} from '../../records/identity.js'

/**
 * A third key, for an episode whose own key and lane key are both taken by other bytes: the
 * same experiment (same manifest: the skill by its blob) run again on this lane from another
 * commit, or with an agent that answers differently, never reusing what is recorded (the
 * gate). Salted by the trace's content, so recording the same episode again is a no-op, not
 * a conflict.
 */
export function contentKey(key: string, trace: RecordDraft<'trace'>): string {
  return `${key}#${prepare({...trace, key: undefined}).digest.slice('sha256:'.length, 'sha256:'.length + 16)}`
}

export interface EpisodeDraftOptions {
  manifest: string
  agent: AgentRef
  skill: SkillRef
  wallMs?: number
  /** the idempotency key (default: episodeKey of manifest, scenario, repetition) */
  key?: string
  /** held-out: the task text is kept out of the records (it stays in the sealed split) */
  sealTask?: boolean
  /** exploration: the lines of the skill left out of what the agent read */
  dropped?: readonly number[]
}

/** The trace and the grader's verification of one episode, ready to append. */
export function episodeDrafts(r: EpisodeResult, o: EpisodeDraftOptions): {trace: RecordDraft<'trace'>; verification: RecordDraft<'verification'>; traceId: string} {
  const key = o.key ?? episodeKey(o.manifest, r.scenario, r.repetition)
  const m = o.sealTask ? taskMask(r.task) : undefined
  const hide = <T>(v: T): T => (m ? m.mask(v) : v)
  const body: TraceBody = {
    manifest: o.manifest,
    scenario: r.scenario,
    split: r.split,
    workflows: r.workflows,
    repetition: r.repetition,
    seed: r.seed,
    task: hide(r.task),
    agent: o.agent,
    skill: o.skill,
    messages: hide(r.messages) as TraceBody['messages'],
    actions: hide(r.actions) as TraceBody['actions'],
    final_answer: hide(r.final_answer),
    usage: r.usage,
    status: r.status,
    state_initial: r.state_initial,
    state_final: r.state_final,
  }
  if (r.invalid_reason !== undefined) body.invalid_reason = hide(r.invalid_reason)
  if (r.step_limit !== undefined) body.step_limit = r.step_limit
  if (o.sealTask) body.sealed_task = true
  if (o.dropped) body.explored = {dropped: [...o.dropped]}
  const trace: RecordDraft<'trace'> = {kind: 'trace', key, body, cites: [o.manifest], ...(o.wallMs === undefined ? {} : {volatile: {wall_ms: Math.round(o.wallMs)}})}
  const {id: traceId, digest: traceDigest} = prepare(trace)
  const v = hide(r.verdict)
  const vb: VerificationBody = {
    trace: traceId,
    trace_digest: traceDigest,
    manifest: o.manifest,
    scenario: r.scenario,
    split: r.split,
    repetition: r.repetition,
    evaluator: WORLD_EVALUATOR,
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
