import type {EventSink, ExpEventInput} from '../events/index.js'
import {GRADER_DIGEST, GRADER_VERSION} from '../evals/grader/version.js'
import {WORLD_VERSION} from '../world/catalog.js'

const EVALUATOR = {
  grader: GRADER_VERSION,
  grader_digest: GRADER_DIGEST,
  world: WORLD_VERSION,
}

/**
 * The loop's own lifecycle events (docs/frontier.md, "Lifecycle events"): iteration scheduled, recall, knowledge
 * promoted or rejected, loop completed. The runs inside an iteration emit their own
 * (run_started … run_completed) through the same sink, tagged with the iteration.
 */
export class LoopEvents {
  private readonly t0 = performance.now()
  private iterationStart = performance.now()

  constructor(
    private readonly sink: EventSink,
    private readonly run: string,
  ) {}

  private emit(e: Omit<ExpEventInput, 'run'>): void {
    this.sink.emit({...e, run: this.run} as ExpEventInput)
  }

  scheduled(iteration: number, o: {lane: string; skill: string; version: number; commit: string}): void {
    this.iterationStart = performance.now()
    this.emit({
      event: 'iteration_scheduled',
      iteration,
      lane: o.lane,
      skill: o.skill,
      version: o.version,
      artifacts: [{kind: 'commit', id: o.commit}],
    })
  }

  recall(
    iteration: number,
    o: {
      recall?: string
      hypothesis?: string
      knowledge: readonly string[]
      reason?: string
    },
  ): void {
    if (!o.recall) {
      this.emit({
        event: 'recall_completed',
        iteration,
        status: 'ok',
        reason: o.reason ?? 'nothing to propose',
        artifacts: [],
      })
      return
    }
    this.emit({
      event: 'recall_completed',
      iteration,
      snapshot: o.recall,
      status: 'ok',
      artifacts: [{kind: 'recall', id: o.recall}, ...(o.hypothesis ? [{kind: 'hypothesis', id: o.hypothesis}] : []), ...o.knowledge.map(id => ({kind: 'knowledge', id}))],
    })
  }

  decided(
    iteration: number,
    o: {
      decision: string
      verdict: 'accept' | 'reject'
      proposal: string
      snapshot?: string
      knowledge: readonly string[]
      reasons: readonly string[]
      merge?: string
    },
  ): void {
    this.emit({
      event: o.verdict === 'accept' ? 'knowledge_promoted' : 'knowledge_rejected',
      iteration,
      ...(o.snapshot ? {snapshot: o.snapshot} : {}),
      evaluator: EVALUATOR,
      status: o.verdict === 'accept' ? 'ok' : 'failed',
      reason: o.reasons.join('; ') || 'all policy checks passed',
      duration_ms: Math.round(performance.now() - this.iterationStart),
      artifacts: [{kind: 'decision', id: o.decision}, {kind: 'proposal', id: o.proposal}, ...(o.merge ? [{kind: 'commit', id: o.merge}] : []), ...o.knowledge.map(id => ({kind: 'knowledge', id}))],
    })
  }

  completed(o: {iterations: number; promoted: number; rejected: number; episodes: number; holdout_before: number; holdout_after: number; stopped?: string}): void {
    this.emit({
      event: 'loop_completed',
      status: 'completed',
      reason: o.stopped ?? `${o.iterations} iteration(s): promoted ${o.promoted}, rejected ${o.rejected}; held-out ${(o.holdout_before * 100).toFixed(1)}% -> ${(o.holdout_after * 100).toFixed(1)}%`,
      duration_ms: Math.round(performance.now() - this.t0),
      resources: {episodes: o.episodes},
    })
  }

  failed(e: unknown): void {
    this.emit({
      event: 'loop_completed',
      status: 'error',
      reason: e instanceof Error ? e.message : String(e),
      duration_ms: Math.round(performance.now() - this.t0),
    })
  }
}
