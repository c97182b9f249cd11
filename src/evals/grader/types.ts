import type {ScoreVector, VerificationBody} from '../../records/types.js'
import type {WorldState} from '../../world/types.js'

/**
 * The declarative grading vocabulary a scenario is written in (docs/scenarios.md).
 * Nothing here is code from the scenario: every form is data the grader interprets.
 */

/** Conditions on one value; several keys in one matcher must all hold. */
export interface Matcher {
  equals?: unknown
  not_equals?: unknown
  one_of?: unknown[]
  /** true: present and not null; false: absent or null */
  exists?: boolean
  /** string: case-insensitive substring; list: some element matches (objects match partially) */
  contains?: unknown
  not_contains?: unknown
  /** numbers compare by value; strings and lists by length */
  min?: number
  max?: number
}

/** In a `where`, a plain value means `equals`. */
export type WhereValue = string | number | boolean | null | Matcher
export type Where = Record<string, WhereValue>

export interface PathInvariant extends Matcher {
  id: string
  description?: string
  /** dotted path into the final state, e.g. `workflows.WF-1031.status` */
  path: string
}

export interface CountInvariant {
  id: string
  description?: string
  /** dotted path of a keyed collection or a list, e.g. `tickets` or `workflows.WF-1031.blockers` */
  collection: string
  where?: Where
  /** exact count, or bounds */
  count: number | {min?: number; max?: number}
}

/** A point in time the state records: a timestamp at a path, or a field of the earliest (latest) matching record. */
export type TimeRef = {path: string} | {collection: string; where?: Where; field: string; pick?: 'earliest' | 'latest'}

/** `first` happened strictly before `then`; both must have happened. */
export interface OrderInvariant {
  id: string
  description?: string
  order: {first: TimeRef; then: TimeRef}
}

/** Exactly one of the inner invariants holds (`exactly_one_of`), or none does (`none_of`). */
export interface ExactlyOneInvariant {
  id: string
  description?: string
  exactly_one_of: Invariant[]
}

export interface NoneInvariant {
  id: string
  description?: string
  none_of: Invariant[]
}

export type Invariant = PathInvariant | CountInvariant | OrderInvariant | ExactlyOneInvariant | NoneInvariant

export interface ToolPattern {
  tool: string
  /** the call's arguments must match (same forms as `where`) */
  arguments?: Where
}

interface ConstraintBase {
  id: string
  description?: string
}

export type Constraint = ConstraintBase & (
  | {before: {first: string; then: string}}
  | {never: string | ToolPattern}
  | {called: string | (ToolPattern & {min?: number})}
  | {max_calls: number | {tool: string; count: number}}
  | {max_errors: number}
)

/** What the task may change: anything else that changed is collateral damage. */
export interface Scope {
  /** records owned by other employees must not change */
  employees: string[]
  /** when given, access grants of in-scope employees may change only for these systems */
  systems?: string[]
  /** when given, devices may be assigned to in-scope employees only of these models */
  models?: string[]
}

export interface GradingSpec {
  invariants: readonly Invariant[]
  constraints: readonly Constraint[]
  scope: Scope
}

/** The part of a trace action the grader reads. */
export interface GradedAction {
  tool: string
  arguments: Record<string, unknown>
  ok: boolean
  error?: {code: string; message: string}
}

export interface GradeInput {
  spec: GradingSpec
  initial: WorldState
  final: WorldState
  actions: readonly GradedAction[]
  usage: {tokens: number; latency_ms: number; messages: number}
  /** false for crashed or timed-out episodes: they never pass */
  valid: boolean
  invalid_reason?: string
  /** set when the runner stopped the agent at its step limit: a violation of its own */
  stepLimit?: number
}

export type Verdict = Pick<VerificationBody, 'grader' | 'valid' | 'invalid_reason' | 'passed' | 'outcome' | 'invariants' | 'collateral' | 'constraint_violations'> & {scores: ScoreVector}
export type InvariantResult = VerificationBody['invariants'][number]
export type DiffEntry = NonNullable<InvariantResult['diff']>[number]
