/**
 * Lifecycle events (docs/frontier.md, "Lifecycle events"), written as JSON Lines for long commands. Names are the
 * documented ones; `run_started` and `run_completed` frame an `exp run`, as `loop_completed` ends
 * a loop.
 */
export const EVENT_NAMES = [
  'run_started',
  'recall_started',
  'recall_completed',
  'recall_failed',
  'attempt_recorded',
  'observation_recorded',
  'verification_started',
  'verification_completed',
  'verification_failed',
  'experience_recorded',
  'knowledge_promoted',
  'knowledge_rejected',
  'iteration_scheduled',
  'run_completed',
  'loop_completed',
] as const
export type EventName = (typeof EVENT_NAMES)[number]

export interface Artifact {
  id: string
  digest?: string
  kind?: string
}

/** The fields every event has, all optional but `event` and `run`. */
export interface ExpEventInput {
  event: EventName
  /** the research run: for `exp run` its manifest id, for the loop its run id */
  run: string
  iteration?: number
  /** the experiment attempt (an episode's idempotency key) */
  attempt?: string
  task?: string
  /** the memory / recall snapshot the attempt was decided on */
  snapshot?: string
  evaluator?: {grader?: string; grader_digest?: string; world?: string; contract?: string}
  artifacts?: Artifact[]
  duration_ms?: number
  resources?: {tool_calls?: number; tokens_in?: number; tokens_out?: number; episodes?: number}
  status?: 'ok' | 'passed' | 'failed' | 'invalid' | 'completed' | 'error'
  reason?: string
  [extra: string]: unknown
}

/** As written: numbered per file and stamped with the injected clock. */
export interface ExpEvent extends ExpEventInput {
  seq: number
  at: string
}
