import type {ResearchContractV2} from '../records/types.js'

/**
 * A research contract with its defaults applied (docs/contracts.md). The skill loop is one
 * instance: editable `skills/**`, evaluated by the world on validation and held-out.
 */
export interface EvalSpec {
  evaluator: 'command' | 'world'
  /** the world: which split */
  split?: 'train' | 'validation' | 'holdout'
  command?: string
  label: string
  timeout_seconds: number
  repetitions: number
  required_artifacts: string[]
  metrics_file: string
}

export interface Contract {
  name: string
  objective: string
  editable_scope: string[]
  protected_scope: string[]
  metric: {name: string; direction: 'maximize' | 'minimize'; margin: number}
  dev_eval: EvalSpec
  holdout_eval: EvalSpec
  validity: {finite_metrics: boolean; max_failed_repetitions: number; required_metrics: string[]}
  private_data: string[]
  baseline: {revision?: string; value?: number}
  budget: {max_attempts: number; max_parallel_lanes: number; max_wall_seconds?: number; max_episodes?: number}
  promotion: {holdout_required: boolean; paired_alpha: number; policy?: string}
  resume: {max_retries: number; timeout_multiplier: number}
  /** where it was read from, and the digest of its canonical form (pinned by every attempt) */
  source: {path: string; digest: string; blob?: string}
}

export type ContractDoc = ResearchContractV2

/** What an attempt's author and agent may see of a contract: everything but the evaluator-only paths and commands' internals. */
export interface PublicContract {
  name: string
  objective: string
  editable_scope: string[]
  protected_scope: string[]
  metric: Contract['metric']
  dev_eval: {label: string; repetitions: number; timeout_seconds: number}
  holdout_eval: {label: string; repetitions: number}
  budget: Contract['budget']
}

export function publicContract(c: Contract): PublicContract {
  return {
    name: c.name,
    objective: c.objective,
    editable_scope: [...c.editable_scope],
    protected_scope: [...c.protected_scope],
    metric: {...c.metric},
    dev_eval: {label: c.dev_eval.label, repetitions: c.dev_eval.repetitions, timeout_seconds: c.dev_eval.timeout_seconds},
    holdout_eval: {label: c.holdout_eval.label, repetitions: c.holdout_eval.repetitions},
    budget: {...c.budget},
  }
}

/** Is `a` better than `b` under the contract's metric, beyond its margin? */
export function improves(c: Pick<Contract, 'metric'>, a: number, b: number): boolean {
  return c.metric.direction === 'maximize' ? a - b > c.metric.margin : b - a > c.metric.margin
}

/** The signed gain of `a` over `b` (positive: better). */
export function gain(c: Pick<Contract, 'metric'>, a: number, b: number): number {
  return c.metric.direction === 'maximize' ? a - b : b - a
}
