import {ExpError} from './base.js'

/** A linked work tree could not be made or used. */
export class WorktreeError extends ExpError {
  constructor(dir: string, detail: string, commit = false, hint?: string) {
    super('E_WORKTREE', commit ? `cannot commit the work tree at ${dir}: ${detail}` : `cannot make a work tree at ${dir}: ${detail}`, {
      data: {dir},
      hint: hint ?? (commit ? 'git refused its files as they are (a .gitattributes among them may ask for an encoding or filter they do not fit): fix or remove them and run again' : 'remove what is in the way, or run `git worktree prune`'),
    })
  }
}

/**
 * A promotion moved the checked-out main branch, and the work tree could not follow it (a
 * tracked file changed meanwhile). The promotion stands and is recorded; the files are the
 * user's to bring along.
 */
export class WorkTreeBehindError extends ExpError {
  constructor(branch: string, from: string, to: string, detail: string) {
    super('E_WORKTREE_BEHIND', `${branch} moved to ${to.slice(0, 12)} (the promotion, recorded), but the work tree could not follow it from ${from.slice(0, 12)}: ${detail}`, {
      data: {branch, from, to},
      hint: 'until the files follow, `git status` shows the promotion undone as staged changes: set yours aside (`git diff > mine.patch && git checkout -- .`), then `git reset --keep HEAD` and `git apply mine.patch`',
    })
  }
}

/**
 * An attempt or a skill proposal changed paths its contract does not let it change; the
 * evaluator was not run (an attempt's violation is recorded) or nothing was promoted.
 */
export class BoundaryError extends ExpError {
  constructor(attempt: string, violations: readonly string[], o: {what?: string; hint?: string} = {}) {
    super('E_BOUNDARY', `${o.what ?? 'attempt'} ${attempt} crosses its contract's boundary: ${violations.join('; ')}`, {data: {attempt, violations}, hint: o.hint ?? 'an attempt may change only the editable scope of its contract (exp contract lint NAME shows it); the violation is recorded'})
  }
}

/**
 * An attempt's evaluation ended without a verdict to act on: needs_retry (a repetition timed
 * out, crashed or left no metrics, and may be resumed) or invalid (too few valid repetitions,
 * and none to resume). Set after the result is printed (`exp attempt eval`): the exit status and
 * the next step, the --json output as it is.
 */
export class AttemptVerdictError extends ExpError {
  constructor(attempt: string, split: 'dev' | 'holdout', outcome: 'needs_retry' | 'invalid', reason: string) {
    const again = `exp attempt eval ${attempt}${split === 'holdout' ? ' --split holdout' : ''}`
    super('E_VERDICT', `attempt ${attempt} ${outcome === 'needs_retry' ? 'needs a retry' : 'is invalid'} on ${split}: ${reason}`, {
      data: {attempt, split, outcome},
      hint:
        outcome === 'needs_retry'
          ? `run \`${again}\` again: it resumes the repetitions that need a retry, as the contract's resume policy says`
          : `its retries are spent: fix what made the evaluator fail in the attempt's work tree and run \`${again}\` again (a new commit is evaluated afresh), or record its rejection with \`exp attempt promote ${attempt}\``,
    })
  }
}

/** The contract's budget is spent. */
export class BudgetError extends ExpError {
  constructor(contract: string, detail: string, hint = 'raise budget.max_attempts in the contract (a reviewed change on main), or stop here') {
    super('E_BUDGET', `the budget of contract ${contract} is spent: ${detail}`, {data: {contract}, hint})
  }
}

/** A research agent did not answer as docs/research-protocol.md says. */
export class ResearchAgentError extends ExpError {
  constructor(agent: string, detail: string) {
    super('E_RESEARCH_AGENT', `research agent ${agent}: ${detail}`, {data: {agent}, hint: 'docs/research-protocol.md describes what it must answer'})
  }
}
