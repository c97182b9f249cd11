import {Flags} from '../vendor/oclif.js'
import {loadConfig} from '../research/files.js'
import {branchNameProblem, branchRef, refNameProblem, resolveMainBranch} from '../research/main-branch.js'
import {readRef} from '../git/refs.js'
import {readGitConfig, configValue} from '../git/config.js'
import {hasNativeGit, runGit} from '../git/run.js'
import type {RepoPaths} from '../store/index.js'
import {readBranchView} from './branches.js'
import {UsageError} from '../errors/index.js'

/** The flag of the read-only history views (provenance, blame, report). */
export const mainFlag = {main: Flags.string({description: 'branch whose history to read, or a full ref (refs/…) (default: main_branch of .research/config.yaml, following a rename; else the default branch)'})}

/**
 * The ref --main names: a branch name (refs/heads/NAME), or a full ref a view reads as it is
 * (`exp ablate --main refs/exp/matrix/…/main`). The views only read what it names; anything
 * else, an empty value (an unset shell variable) above all, is refused by the flag's name:
 * `--main ""` was taken as no flag at all.
 */
export function mainFlagRef(flag: string): string {
  if (!flag.trim()) throw new UsageError('--main is empty', 'name the branch whose history to read, e.g. --main main, or leave the flag out for main_branch of .research/config.yaml')
  const full = flag.startsWith('refs/')
  const why = full ? refNameProblem(flag) : branchNameProblem(flag)
  if (why) throw new UsageError(`--main ${JSON.stringify(flag)} is not a ${full ? 'ref' : 'branch'} name: ${why}`, 'name a branch, e.g. --main main, or a full ref (refs/heads/main); leave the flag out for main_branch of .research/config.yaml')
  return full ? flag : branchRef(flag)
}

/**
 * refs/heads/<main branch>: --main (mainFlagRef), else .research/config.yaml `main_branch` when that branch
 * exists, else where it was renamed to, else the repository's default branch (`warn` says so:
 * the configuration names a branch this repository does not have).
 */
export async function mainRefOf(repo: RepoPaths, cwd: string, flag?: string, warnOnce?: (line: string) => void): Promise<string> {
  if (flag !== undefined) return mainFlagRef(flag)
  // (a command that asks twice, for its views and for the trust checks, says it once)
  const warn = warnOnce && ((line: string) => void (said.has(line) || (said.add(line), warnOnce(line))))
  const configured = (await loadConfig(repo.workDir ?? cwd)).main_branch
  const view = await readBranchView(repo, {renames: !!configured})
  // the checked-out file names the branch whose policy and allowed signers judge: a pull
  // request's checkout that names itself (main_branch: pr) had `exp fsck` there take its own
  // keys as trusted and report nothing. The gate refuses that (gateBaseOf); a view says so
  if (configured && view.remoteHead && view.remoteHead !== configured && warn) warn(`note: main_branch ${configured} (the checked-out .research/config.yaml) is not origin's default branch ${view.remoteHead}: the policy, allowed signers and promotions read here are ${configured}'s (pass --main ${view.remoteHead} where a command takes it)`)
  if (configured && (await readRef(repo.commonDir, branchRef(configured)))) return branchRef(configured)
  const found = resolveMainBranch(configured, view)
  if (found.via === 'guess' && configured && found.branch !== configured) warn?.(`note: main_branch ${configured} (.research/config.yaml) is not a branch here; using ${found.branch}. Set main_branch to silence this.`)
  return branchRef(found.branch)
}

/** the notes mainRefOf gave in this process */
const said = new Set<string>()

/**
 * The base of `exp gate` run without --base (and outside CI): the main branch mainRefOf finds
 * — from the checked-out .research/config.yaml, which is a file of the very change a gate on
 * a pull-request checkout judges. A change that names itself as main_branch made the gate
 * compare it with itself and pass. Refused, with --base as the way on, when the named main
 * branch is at the head's very commit (nothing to judge it against), or is not the branch
 * origin's HEAD names (the clone's origin/HEAD, which `git clone` of a repository with commits
 * writes; else origin is asked, `git ls-remote --symref origin HEAD`; a clone without an
 * origin, or one that cannot reach it, cannot tell: docs/trust.md).
 */
export async function gateBaseOf(repo: RepoPaths, ws: {resolve(rev: string): Promise<string | undefined>}, mainRef: string, head: string): Promise<string> {
  const main = mainRef.replace(/^refs\/heads\//, '')
  // (a clone of an empty repository has no origin/HEAD: origin is asked)
  const remoteHead = (await readBranchView(repo, {renames: false})).remoteHead ?? (await askOriginHead(repo))
  const [b, h] = [await ws.resolve(mainRef), await ws.resolve(head)]
  const why = b && b === h ? `${main} is at the head's very commit: there is nothing to judge it against` : remoteHead && remoteHead !== main ? `origin's default branch is ${remoteHead}` : undefined
  if (why) throw new UsageError(`exp gate needs --base here: the main branch the checked-out .research/config.yaml names is ${main}, and ${why} (that file is part of the change a gate judges, and could name its own base)`, `give the branch the change goes into, e.g. \`exp gate --base ${remoteHead && remoteHead !== main ? remoteHead : 'main'} --head ${head}\` (CI passes --base refs/remotes/origin/$GITHUB_BASE_REF)`)
  return mainRef
}

/** The branch origin's HEAD names, asked of origin (undefined: no origin, no answer in 10 s, or no branch). */
async function askOriginHead(repo: RepoPaths): Promise<string | undefined> {
  if (!configValue(readGitConfig(repo.commonDir), 'remote.origin.url') || !(await hasNativeGit())) return undefined
  const r = await runGit(['--git-dir', repo.commonDir, 'ls-remote', '--symref', 'origin', 'HEAD'], {cwd: repo.commonDir, env: {GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never'}, allowFail: true, timeoutMs: 10_000}).catch(() => undefined)
  const m = r?.code === 0 ? /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(r.stdout.toString('utf8')) : undefined
  return m?.[1]
}
