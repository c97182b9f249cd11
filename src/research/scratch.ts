import {runGit} from '../store/git/native.js'
import type {RepoPaths} from '../store/index.js'

/**
 * A throw-away copy of one branch of a repository, bare, sharing its objects (git clone
 * --shared): what `exp audit-gate` sends its null candidates through, so that their records,
 * branches and promotion merges never reach the repository itself.
 */
export async function scratchClone(repo: RepoPaths, dir: string, branch: string): Promise<void> {
  await runGit(['clone', '--quiet', '--bare', '--shared', '--single-branch', '--branch', branch, '--no-tags', repo.commonDir, dir], {cwd: repo.commonDir})
}
