import {readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {listRefs} from '../git/refs.js'
import type {RepoPaths} from '../store/index.js'
import type {BranchView} from '../research/main-branch.js'

/** The branches of a repository as src/research/main-branch.ts needs them: refs, HEAD, origin's HEAD, reflog renames. */
export async function readBranchView(repo: RepoPaths, o: {renames?: boolean} = {}): Promise<BranchView> {
  const branches = [...(await listRefs(repo.commonDir, 'refs/heads/')).keys()].map(r => r.slice('refs/heads/'.length))
  return {
    branches,
    head: symbolic(path.join(repo.gitDir, 'HEAD'), 'refs/heads/'),
    remoteHead: symbolic(path.join(repo.commonDir, 'refs/remotes/origin/HEAD'), 'refs/remotes/origin/'),
    // reflogs are read only when a rename may matter (the configured branch is gone)
    renames: o.renames === false ? [] : readRenames(repo.commonDir),
  }
}

function symbolic(file: string, prefix: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim()
    return text.startsWith(`ref: ${prefix}`) ? text.slice(`ref: ${prefix}`.length) : undefined
  } catch {
    return undefined
  }
}

// `git branch -m A B` writes "Branch: renamed refs/heads/A to refs/heads/B" into B's reflog
const RENAMED = /^\S+ \S+ .*> (\d+) [+-]\d{4}\tBranch: renamed refs\/heads\/(.+) to refs\/heads\/(.+)$/

function readRenames(commonDir: string): {from: string; to: string}[] {
  const found: {at: number; from: string; to: string}[] = []
  const walk = (dir: string): void => {
    let entries
    try {
      entries = readdirSync(dir, {withFileTypes: true})
    } catch {
      return
    }
    for (const e of entries) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) {
        for (const line of readFileSync(p, 'utf8').split('\n')) {
          const m = RENAMED.exec(line)
          if (m) found.push({at: Number(m[1]), from: m[2]!, to: m[3]!})
        }
      }
    }
  }
  walk(path.join(commonDir, 'logs', 'refs', 'heads'))
  return found.sort((a, b) => a.at - b.at).map(({from, to}) => ({from, to}))
}
