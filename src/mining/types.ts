import type {ResultSchema} from '../knowledge/index.js'
import type {TraceBody, VerificationBody} from '../records/types.js'

/** One train episode as the miner sees it: the trace and the grader's verdict on it. */
export interface MinedTrace {
  id: string
  body: TraceBody
  verification: {id: string; body: VerificationBody}
}

/** One tool call of a trace, reduced to what the predicates look at. */
export interface Call {
  /** position in the trace's calls */
  i: number
  tool: string
  args: Record<string, unknown>
  ok: boolean
  /** the call changed the world (its state digests differ): an action, not a read */
  wrote: boolean
  code?: string
  result?: unknown
}

/** A trace reduced to its observable structure and outcome. */
export interface View {
  id: string
  /** opaque key of the task: runs with the same key are repetitions of one task */
  task: string
  text: string
  workflows: readonly string[]
  passed: boolean
  /** what the grader found wrong: failed invariant ids, `constraint:<id>`, `collateral` */
  failures: readonly string[]
  calls: readonly Call[]
}

export interface MineOptions {
  /** least number of supporting traces a finding needs (default 3) */
  minSupport?: number
  /** least difference between the pass rate when a rule is followed and when it is violated, within tasks (default 0.25) */
  minLift?: number
  /** least number of traces that followed a rule and passed (default 1): a rule nobody followed is untested */
  minFollowedPassed?: number
  /** longest response sequence tried for `If …, call A, then B…` rules (default 3) */
  maxCalls?: number
  /** the tool catalog the runs used: a tool's result schema says which fields are required (pending information) */
  tools?: readonly {name: string; returns?: ResultSchema}[]
}

export const MINE_DEFAULTS: Required<Omit<MineOptions, 'tools'>> = {minSupport: 3, minLift: 0.25, minFollowedPassed: 1, maxCalls: 3}

/** Name and version written into every evidence record; bump the version when a predicate changes. */
export const MINER = {name: 'exp-miner', version: '2'} as const
