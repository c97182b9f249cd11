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
  const own = v.branches.filter(b => !b.startsWith('exp/'))
  if (v.remoteHead && (own.includes(v.remoteHead) || !own.length)) return v.remoteHead
  if (v.head && (!own.length || (own.length === 1 && own[0] === v.head))) return v.head
  for (const b of ['main', 'master', 'trunk']) if (own.includes(b)) return b
  if (v.head && own.includes(v.head)) return v.head
  return own[0] ?? v.head ?? 'main'
}

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
  if (name !== configured && v.branches.includes(name)) return {branch: name, via: 'rename', configured}
  return {branch: defaultBranch(v), via: 'guess', configured}
}

/** `refs/heads/NAME`, or a full ref as given. */
export function branchRef(branch: string): string {
  return branch.startsWith('refs/') ? branch : `refs/heads/${branch}`
}
