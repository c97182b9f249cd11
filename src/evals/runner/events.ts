import {prepare, type RecordDraft} from '../../records/index.js'
import type {EventSink, ExpEventInput} from '../../events/index.js'
import {GRADER_DIGEST, GRADER_VERSION} from '../grader/version.js'
import {WORLD_VERSION} from '../../world/catalog.js'

const EVALUATOR = {grader: GRADER_VERSION, grader_digest: GRADER_DIGEST, world: WORLD_VERSION}

/**
 * The lifecycle events of one `exp run` (docs/frontier.md, "Lifecycle events"). Built only when a sink is set, so
 * the runner's hot path without one is a single `undefined` check per batch.
 */
export class RunEvents {
  private readonly t0 = performance.now()

  constructor(private readonly sink: EventSink, private readonly ctx: {run: string; iteration?: number; snapshot?: string}) {}

  private emit(e: Omit<ExpEventInput, 'run'>): void {
    this.sink.emit({...e, run: this.ctx.run, ...(this.ctx.iteration !== undefined ? {iteration: this.ctx.iteration} : {}), ...(this.ctx.snapshot ? {snapshot: this.ctx.snapshot} : {})} as ExpEventInput)
  }

  started(o: {split: string; episodes: number; resumed: number; privateScenarios?: readonly string[]}): void {
    // held-out scenario ids are hidden from this event on: the sink redacts before writing
    if (o.privateScenarios?.length) this.sink.hide(o.privateScenarios)
    this.emit({event: 'run_started', evaluator: EVALUATOR, split: o.split, resources: {episodes: o.episodes}, resumed: o.resumed})
  }

  /** attempt, observation and verification of each episode, once its records are appended */
  episodes(drafts: readonly RecordDraft[]): void {
    for (let i = 0; i + 1 < drafts.length; i += 2) {
      const trace = drafts[i] as RecordDraft<'trace'>
      const verification = drafts[i + 1] as RecordDraft<'verification'>
      const tb = trace.body
      const vb = verification.body
      const t = prepare(trace)
      const v = prepare(verification)
      const attempt = trace.key!
      const status = !vb.valid ? 'invalid' : vb.passed ? 'passed' : 'failed'
      const reason = vb.invalid_reason ?? tb.invalid_reason
      this.emit({event: 'attempt_recorded', attempt, task: tb.scenario, duration_ms: trace.volatile?.wall_ms as number | undefined, status: tb.status === 'invalid' ? 'invalid' : 'completed', ...(reason ? {reason} : {})})
      this.emit({event: 'observation_recorded', attempt, task: tb.scenario, artifacts: [{kind: 'trace', id: t.id, digest: t.digest}], resources: {tool_calls: tb.usage.tool_calls, tokens_in: tb.usage.tokens_in, tokens_out: tb.usage.tokens_out}})
      this.emit({event: 'verification_completed', attempt, task: tb.scenario, evaluator: EVALUATOR, artifacts: [{kind: 'verification', id: v.id, digest: v.digest}], status, ...(reason ? {reason} : {})})
    }
  }

  recorded(evaluations: {id: string; private?: boolean}[]): void {
    this.emit({event: 'experience_recorded', artifacts: evaluations.map(e => ({kind: e.private ? 'evaluation (private)' : 'evaluation', id: e.id}))})
  }

  completed(o: {total: number; passed: number; invalid: number; recorded: number}): void {
    this.emit({event: 'run_completed', status: 'completed', reason: `${o.passed}/${o.total} passed, ${o.invalid} invalid`, duration_ms: Math.round(performance.now() - this.t0), resources: {episodes: o.recorded}})
  }

  failed(e: unknown): void {
    this.emit({event: 'run_completed', status: 'error', reason: e instanceof Error ? e.message : String(e), duration_ms: Math.round(performance.now() - this.t0)})
  }
}
