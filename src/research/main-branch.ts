import {ExpError} from '../errors/index.js'
import {refNameProblem} from '../ref-name.js'

export {refNameProblem}

/**
 * Which branch is "main": the branch promotions merge into and the history views read.
 * Pure: it decides over a snapshot of the repository's branches (read by src/cli/branches.ts),
 * so `master`, `main` or any other name works the same, and a renamed branch is followed.
 */
export interface BranchView {
  /** local branch names (without refs/heads/) */
  branches: readonly string[]
  /** the branch HEAD points to in this work tree, even when it has no commit yet */
  head?: string
  /** the branch origin's HEAD points to (refs/remotes/origin/HEAD), when known */
  remoteHead?: string
  /** branch renames from the reflogs (`git branch -m`), oldest first */
  renames: readonly {from: string; to: string}[]
}

export interface MainBranch {
  branch: string
  /** how it was found: as configured, by following a rename, or guessed (no or a stale config) */
  via: 'config' | 'rename' | 'guess'
  /** the configured name, when it was not used as is */
  configured?: string
}

/**
 * The branch a repository treats as its default: origin's HEAD when there is one; the branch
 * HEAD points to when it is the only one (a fresh `git init`, whatever init.defaultBranch
 * says); else main, master or trunk; else HEAD's branch. What `exp init` records.
 */
export function defaultBranch(v: BranchView): string {
  // (names read from the repository that are no branch names — a branch git calls
  // refs/heads/refs/tags/x, an origin/HEAD written by hand — are never guessed as main)
  const own = v.branches.filter(b => !b.startsWith('exp/') && isBranchName(b))
  const [remoteHead, head] = [v.remoteHead, v.head].map(b => (b !== undefined && isBranchName(b) ? b : undefined))
  if (remoteHead && (own.includes(remoteHead) || !own.length)) return remoteHead
  if (head && (!own.length || (own.length === 1 && own[0] === head))) return head
  for (const b of ['main', 'master', 'trunk']) if (own.includes(b)) return b
  if (head && own.includes(head)) return head
  return own[0] ?? head ?? 'main'
}

const isBranchName = (name: string): boolean => branchNameProblem(name) === undefined

/**
 * The main branch: the configured one when it exists; else where `git branch -m` renamed it
 * (followed through several renames); else, when the configured one never existed here (an
 * older `exp init` wrote `main` on a `master` repository), the default branch. A repository
 * with no commit yet keeps the configured name.
 */
export function resolveMainBranch(configured: string | undefined, v: BranchView): MainBranch {
  if (!configured) return {branch: defaultBranch(v), via: 'guess'}
  if (v.branches.includes(configured) || !v.branches.length) return {branch: configured, via: 'config'}
  let name = configured
  const seen = new Set([name])
  for (;;) {
    const next = [...v.renames].reverse().find(r => r.from === name)?.to
    if (!next || seen.has(next)) break
    seen.add(next)
    name = next
  }
  if (name !== configured && v.branches.includes(name) && isBranchName(name)) return {branch: name, via: 'rename', configured}
  return {branch: defaultBranch(v), via: 'guess', configured}
}

/**
 * Why `name` is not a branch name (undefined: it is one): what `git check-ref-format --branch`
 * refuses, a leading '-', HEAD, and a full ref name. main_branch was taken as a full ref when
 * it started with refs/, so a committed `main_branch: refs/tags/v1.0` (a clone or a pull
 * request sets that file) had `exp evolve` promote by moving the release tag, and
 * `refs/research/lanes/x` land promotion merges on a lane.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name.startsWith('refs/')) return `it is a full ref name, not the name of a branch (promotions would move ${name})`
  if (name === 'HEAD') return 'HEAD is not a branch: it names whatever is checked out'
  if (name.startsWith('-')) return "it starts with '-', which git would take for an option"
  return refNameProblem(name)
}

/** `refs/heads/NAME`; a name that is not a branch name is refused (main_branch and --main are checked by name before). */
export function branchRef(branch: string): string {
  const why = branchNameProblem(branch)
  if (why) throw new ExpError('E_INVALID_NAME', `not a branch name: ${JSON.stringify(branch)}: ${why}`, {data: {what: 'branch', name: branch}, hint: 'name the main branch by its branch name, e.g. main (main_branch in .research/config.yaml, --main)'})
  return `refs/heads/${branch}`
}
