import type {AgentOptions} from '../../agents/registry.js'
import type {AgentRef, EvaluationBody, ManifestBody, SkillRef, Split} from '../../records/types.js'
import type {HoldoutKey, Problem} from '../../scenarios/index.js'
import type {RecordStore, RepoPaths} from '../../store/index.js'
import type {Redact} from '../../redact/index.js'
import type {VerifiedEpisode} from './summary.js'
import type {Reuse} from './plan.js'
import type {EventSink} from '../../events/index.js'
import {RunSession} from './session.js'
import type {RunMemory} from './memory.js'
import type {ResolvedSkill} from './skill.js'
import type {Explore} from './explore.js'
import type {Workspace} from '../../workspace/port.js'

export {EXP_VERSION} from './session.js'

export interface RunOptions {
  split: Split
  agent: string
  skill?: string
  repeat?: number
  concurrency?: number
  scenariosDir: string
  skillsDir: string
  seed?: number
  lane: string
  cwd: string
  repo?: RepoPaths
  /** where a skill at a git revision is read (`--skill REV[:PATH]`): the Workspace port */
  workspace?: Workspace
  purpose?: ManifestBody['purpose']
  role?: EvaluationBody['role']
  proposal?: string
  iteration?: number
  strict?: boolean
  maxSteps?: number
  /** run again the episodes whose latest attempt failed for infrastructure reasons (default true) */
  retryInvalid?: boolean
  /** episodes per append batch (one lock, one pack) */
  batch?: number
  agentOptions?: AgentOptions
  /** last word on the (full) evaluation body before it is recorded, e.g. to add a paired comparison */
  decorate?: (full: EvaluationBody, verified: readonly VerifiedEpisode[]) => EvaluationBody
  /** the held-out key, when the held-out split is sealed (findHoldoutKey) */
  holdoutKey?: HoldoutKey
  /** verified (default): reuse recorded episodes that replay to the same verdict; none: run every episode (the gate); {only}: just these */
  reuse?: Reuse
  /** applied to all text that comes from the agent before it is recorded (default: secrets of process.env, key shapes, home paths) */
  redact?: Redact
  /** lifecycle events (attempt, observation, verification per episode, then the summary) */
  events?: EventSink
  /** the loop iteration named in events (unlike `iteration`, not part of the manifest) */
  eventIteration?: number
  /** the memory snapshot the run was decided on, named in its events */
  snapshot?: string
  /** the memory mode and what was recalled into the agent's context (src/evals/runner/memory.ts); default: record_only, nothing recalled */
  memory?: RunMemory | ((skill: ResolvedSkill) => Promise<RunMemory>)
  /** the isolated namespace of an `exp compare` arm, pinned by the manifest */
  namespace?: string
  /** training only: each run reads the skill without some of its rules (explore.ts), pinned by the manifest */
  explore?: Explore
  now?: () => Date
  onProgress?: (p: RunProgress) => void
}

export interface RunProgress {
  total: number
  done: number
  passed: number
  invalid: number
  resumed: number
}

export interface RunResult {
  manifest: string
  /** the evaluation on the public lane (for held-out: the aggregate only) */
  evaluation: string
  /** held-out only: the full evaluation on the private lane */
  private_evaluation?: string
  split: Split
  total: number
  passed: number
  invalid: number
  success_rate: number
  ci: [number, number]
  resumed: number
  /** episodes run again because their last attempt failed for infrastructure reasons */
  retried: number
  recorded: number
  skill: SkillRef
  agent: AgentRef
  body: EvaluationBody
  /** every episode's verification (id and body), sorted by id */
  verified: VerifiedEpisode[]
  problems: Problem[]
}

/**
 * `exp run`: one manifest, then a trace and the grader's verification per episode, then the
 * evaluation summary. Resumable and idempotent: episode ids derive from (manifest,
 * scenario, repetition), so a rerun after a kill records only the missing episodes.
 * Held-out traces and verifications go to the lane's private ref; the public lane gets
 * the manifest and the aggregate only.
 */
export async function runEvaluation(store: RecordStore, o: RunOptions): Promise<RunResult> {
  const session = await RunSession.open(store, o)
  try {
    await session.ensure(session.slots)
    return await session.record(session.verified(), {repeat: o.repeat ?? 1, decorate: o.decorate})
  } catch (e) {
    session.failed(e)
    throw e
  } finally {
    await session.close()
  }
}
