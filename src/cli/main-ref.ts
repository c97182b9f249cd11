import {Flags} from '../vendor/oclif.js'
import {loadConfig} from '../research/files.js'
import {branchRef, resolveMainBranch} from '../research/main-branch.js'
import {readRef} from '../git/refs.js'
import type {RepoPaths} from '../store/index.js'
import {readBranchView} from './branches.js'

/** The flag of the read-only history views (provenance, blame, report). */
export const mainFlag = {main: Flags.string({description: 'branch whose history to read (default: main_branch of .research/config.yaml, following a rename; else the default branch)'})}

/**
 * refs/heads/<main branch>: --main, else .research/config.yaml `main_branch` when that branch
 * exists, else where it was renamed to, else the repository's default branch (`warn` says so:
 * the configuration names a branch this repository does not have).
 */
export async function mainRefOf(repo: RepoPaths, cwd: string, flag?: string, warn?: (line: string) => void): Promise<string> {
  if (flag) return branchRef(flag)
  const configured = (await loadConfig(repo.workDir ?? cwd)).main_branch
  if (configured && (await readRef(repo.commonDir, branchRef(configured)))) return branchRef(configured)
  const found = resolveMainBranch(configured, await readBranchView(repo, {renames: !!configured}))
  if (found.via === 'guess' && configured && found.branch !== configured) warn?.(`note: main_branch ${configured} (.research/config.yaml) is not a branch here; using ${found.branch}. Set main_branch to silence this.`)
  return branchRef(found.branch)
}
