import {mkdtemp, rm} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {runGit} from '../git/run.js'
import {GitRecordStore, type RepoPaths} from '../store/index.js'
import {GitWorkspace} from '../workspace/git.js'
import type {Scratch} from '../loop/audit.js'

/**
 * A throw-away copy of one branch of a repository, bare, sharing its objects (git clone
 * --shared): what `exp audit-gate` sends its null candidates through, so that their records,
 * branches and promotion merges never reach the repository itself.
 */
export async function scratchClone(repo: RepoPaths, dir: string, branch: string): Promise<void> {
  await runGit(['clone', '--quiet', '--bare', '--shared', '--single-branch', '--branch', branch, '--no-tags', repo.commonDir, dir], {cwd: repo.commonDir})
}

/** scratchClone in a new temp folder, opened through the ports; closing removes it unless `keep`. */
export async function gitScratch(repo: RepoPaths, o: {mainRef: string; keep: boolean}): Promise<Scratch> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'exp-audit-'))
  const bare = path.join(dir, 'scratch.git')
  const remove = () => (o.keep ? Promise.resolve() : rm(dir, {recursive: true, force: true}))
  try {
    await scratchClone(repo, bare, o.mainRef.replace(/^refs\/heads\//, ''))
    const store = await GitRecordStore.open(bare)
    return {
      store,
      ws: new GitWorkspace(store),
      repo: store.repo,
      where: bare,
      close: async () => {
        try {
          await store.close()
        } finally {
          await remove()
        }
      },
    }
  } catch (e) {
    await remove()
    throw e
  }
}
