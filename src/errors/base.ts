/**
 * The one error base of the project. Every failure a user can see is an ExpError with a
 * stable `code`, structured `data`, an exit status and a hint (the next step to take).
 * Commands never print stacks for these unless --debug is given; see src/cli/base.ts.
 */
export interface ExpErrorOptions {
  data?: Record<string, unknown>
  hint?: string
  exit?: number
  cause?: unknown
}

export class ExpError extends Error {
  readonly code: string
  readonly data: Record<string, unknown>
  readonly hint?: string
  readonly exit: number

  constructor(code: string, message: string, options: ExpErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = 'ExpError'
    this.code = code
    this.data = options.data ?? {}
    this.hint = options.hint
    this.exit = options.exit ?? exitFor(code)
  }

  toJSON(): Record<string, unknown> {
    return {code: this.code, message: this.message, hint: this.hint, data: this.data}
  }
}

/** Exit statuses, set in one place. 1 = generic, 2 = usage/bad input, 3 = not found, 4 = conflict/contention, 5 = integrity. */
const EXIT: Record<string, number> = {
  E_USAGE: 2,
  E_INVALID_INPUT: 2,
  E_PARSE: 2,
  E_SCHEMA: 2,
  E_UNKNOWN_KIND: 2,
  E_INVALID_NAME: 2,
  E_TOO_LARGE: 2,
  E_NOT_A_REPO: 3,
  E_UNSUPPORTED_REPO: 3,
  E_NOT_FOUND: 3,
  E_CONFLICT: 4,
  E_PATCH_CONFLICT: 4,
  E_LOCKED: 4,
  E_DIVERGED: 4,
  E_REFUSED: 4,
  E_SYNC: 1,
  E_DIRTY_TREE: 4,
  E_CLAIMED: 4,
  E_STATE: 4,
  E_CORRUPT: 5,
  E_INTEGRITY: 5,
  E_UNTRUSTED: 5,
  E_SEALED: 7,
  E_SANDBOX: 2,
  E_SECRET: 2,
  E_WORKTREE: 4,
  E_WORKTREE_BEHIND: 4,
  E_BOUNDARY: 6,
  E_VERDICT: 6,
  E_BUDGET: 6,
  E_RESEARCH_AGENT: 1,
  E_POLICY: 6,
  E_LINT: 1,
  E_WRITE: 1,
}

export function exitFor(code: string): number {
  return EXIT[code] ?? 1
}

export function isExpError(e: unknown): e is ExpError {
  return e instanceof ExpError
}
