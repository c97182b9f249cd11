import {hasNativeGit, runGit} from '../../git/run.js'
import {readCommit, type CommitInfo} from './commits.js'
import type {GitRecordStore} from './store.js'
import {ExpError} from '../../errors/index.js'
import {trailersOf, type BlamedLine} from '../../workspace/history.js'

export {trailersOf, type BlamedLine}

/**
 * Reading a branch's history as plain git sees it: the first-parent line (what the branch
 * was, commit by commit) and `git blame`. Nothing here knows what the commits mean.
 */


/**
 * The first-parent line of `tip`, oldest first. Read through the object reader (no git
 * binary needed); a merge's second parent is in `parents` but not walked.
 */
export async function firstParentLine(store: GitRecordStore, tip: string): Promise<CommitInfo[]> {
  const out: CommitInfo[] = []
  const seen = new Set<string>()
  for (let oid: string | undefined = tip; oid && !seen.has(oid); oid = out[out.length - 1]!.parents[0]) {
    seen.add(oid)
    out.push(await readCommit(store, oid))
  }
  return out.reverse()
}


/**
 * `git blame --porcelain REV -- PATH`, parsed, with each line's `via` from the same blame
 * with `--first-parent` (the commit of REV's first-parent line that brought it). Needs the git
 * binary (isomorphic-git has no blame).
 */
export async function blameFile(store: GitRecordStore, rev: string, file: string): Promise<BlamedLine[]> {
  if (!(await hasNativeGit())) throw new ExpError('E_USAGE', 'blame needs the git binary on PATH', {hint: 'install git, or unset EXP_NO_NATIVE_GIT'})
  // (`--ignore-revs-file=` empties the list a user's blame.ignoreRevsFile names: with it, the
  // lines of the commits listed there were given to others, and provenance with them)
  const run = (extra: string[]) => runGit(['--git-dir', store.commonDir, 'blame', '--porcelain', '--ignore-revs-file=', ...extra, rev, '--', file], {cwd: store.commonDir})
  const [all, first] = await Promise.all([run([]), run(['--first-parent'])])
  const lines = parsePorcelainBlame(all.stdout.toString('utf8'))
  const via = new Map(parsePorcelainBlame(first.stdout.toString('utf8')).map(l => [l.line, l.commit]))
  return lines.map(l => ({...l, via: via.get(l.line) ?? l.commit}))
}

/**
 * The porcelain format: a `<sha> <orig> <final> [<count>]` header, commit details the first
 * time a commit is seen, then the line after a tab. (`via` is the blamed commit: run with
 * `--first-parent`, that is what it means; blameFile sets it from such a run.)
 */
export function parsePorcelainBlame(out: string): BlamedLine[] {
  const lines: BlamedLine[] = []
  let current: {commit: string; orig: number; final: number} | undefined
  for (const raw of out.split('\n')) {
    if (raw.startsWith('\t')) {
      if (current) lines.push({line: current.final, text: raw.slice(1), commit: current.commit, original_line: current.orig, via: current.commit})
      current = undefined
      continue
    }
    const m = /^([0-9a-f]{40}) (\d+) (\d+)(?: \d+)?$/.exec(raw)
    if (m) current = {commit: m[1]!, orig: Number(m[2]), final: Number(m[3])}
  }
  return lines
}
