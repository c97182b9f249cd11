import type {Constraint, GradingSpec, Invariant, Scope} from '../evals/grader/types.js'
import type {InitialSpec} from '../world/initial.js'
import type {Split} from '../records/types.js'
import {textLine} from '../records/summary.js'

/** A scenario file (scenarios/<id>.yaml), as validated by schemas/scenario.schema.json. */
export interface Scenario extends GradingSpec {
  id: string
  split: Split
  /** workflow and trap tags; the seven classes are onboarding, offboarding, access, shortage, duplicates, escalation, completion */
  workflows: string[]
  description: string
  /** what the agent is told, like a ticket a person would write */
  task: string
  initial: InitialSpec
  scope: Scope
  invariants: Invariant[]
  constraints: Constraint[]
  /** a trajectory that solves the task; the linter replays it through the grader */
  gold: {tool: string; arguments: Record<string, unknown>}[]
  max_steps?: number
}

/** Where a problem was found: `file:line: message`. Lines and columns are 1-based. */
export interface Problem {
  file: string
  line: number
  column?: number
  message: string
}

export const CLASS_TAGS = ['onboarding', 'offboarding', 'access', 'shortage', 'duplicates', 'escalation', 'completion'] as const

export function formatProblem(p: Problem): string {
  // one line, whatever the file is named or its text holds: a committed file named with an
  // escape sequence drove the terminal, and one with a newline printed a line of its own
  return `${textLine(p.file)}:${p.line}${p.column ? `:${p.column}` : ''}: ${textLine(p.message)}`
}
