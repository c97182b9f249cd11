import type {EvaluatorRef} from '../../records/types.js'

/**
 * The Evaluator port (docs/trust.md). An evaluator is the only thing whose word counts: it
 * turns an observation (an agent's episode in the world, an attempt's run of a contract's
 * command) into a verification. Every manifest, verification and evaluation names the
 * evaluator by identity, so evidence judged by one evaluator is never mistaken for
 * another's. Adapters: the built-in world + grader (`world.ts`), a contract's command.
 */
export type EvaluatorIdentity = EvaluatorRef

export interface Evaluator<Job, Judged> {
  readonly identity: EvaluatorIdentity
  /**
   * True when judging a recorded observation again reproduces its verification exactly
   * (the world: replay the tool calls in a fresh world, grade again). Evidence of a
   * deterministic evaluator is then re-derived, never taken on faith.
   */
  readonly deterministic: boolean
  judge(job: Job): Promise<Judged>
}

/** What replaying one recorded verification found. */
export type ReplayOutcome = {ok: true} | {ok: false; reason: string}

/** A deterministic evaluator can re-derive a verification from its observation. */
export interface ReplayingEvaluator<Job, Judged, Observation, Verification, Context> extends Evaluator<Job, Judged> {
  replay(observation: Observation, verification: Verification, context: Context): ReplayOutcome
}

export function sameEvaluator(a: Pick<EvaluatorIdentity, 'id' | 'digest'> | undefined, b: Pick<EvaluatorIdentity, 'id' | 'digest'> | undefined): boolean {
  return !!a && !!b && a.id === b.id && a.digest === b.digest
}
