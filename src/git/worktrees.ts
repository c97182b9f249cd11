import {readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {configValue, parseGitConfig} from './config.js'

/**
 * Every work tree of the repository whose common git dir is `commonDir`, as `git worktree
 * list` names them: the main one (the folder that holds the common `.git`, or `core.worktree`;
 * none for a bare repository) and each linked one git's registry names
 * (`<common dir>/worktrees/<name>/gitdir`, the path of its `.git` file). Each is a checkout of
 * the same history — scenarios with their gold answers, the contract's harness — so a sandbox
 * hides them all, not only the one exp was started in. Paths are as git wrote them (absolute,
 * or relative to the registry entry); one that no longer exists is still named (the sandbox
 * hides only what is there). `workDir`, the one exp runs in, is always among them.
 */
export function workTreesOf(repo: {commonDir: string; workDir?: string}): string[] {
  const out: string[] = repo.workDir ? [path.resolve(repo.workDir)] : []
  let cfg = new Map<string, string[]>()
  try {
    cfg = parseGitConfig(readFileSync(path.join(repo.commonDir, 'config'), 'utf8'))
  } catch {
    // no config file: git's defaults
  }
  const worktree = configValue(cfg, 'core.worktree')
  const bare = /^(true|yes|on|1)$/i.test(configValue(cfg, 'core.bare') ?? '')
  if (worktree) out.push(path.resolve(repo.commonDir, worktree))
  else if (!bare && path.basename(repo.commonDir) === '.git') out.push(path.dirname(path.resolve(repo.commonDir)))
  for (const linked of linkedWorkTrees(repo.commonDir)) out.push(linked.dir)
  return [...new Set(out)]
}

/**
 * The linked work trees git's registry names: for each `<common dir>/worktrees/<name>` whose
 * `gitdir` file names the folder's `.git`, that administrative folder and the work tree's
 * folder (as git wrote it: absolute, or relative to the entry). Never read from a work tree's
 * own `.git`, which whoever edits the folder can replace.
 */
export function linkedWorkTrees(commonDir: string): {admin: string; dir: string}[] {
  const root = path.join(commonDir, 'worktrees')
  let names: string[] = []
  try {
    names = readdirSync(root)
  } catch {
    // no linked work trees
  }
  const out: {admin: string; dir: string}[] = []
  for (const name of names) {
    let gitdir: string
    try {
      gitdir = readFileSync(path.join(root, name, 'gitdir'), 'utf8').trim()
    } catch {
      continue
    }
    if (gitdir) out.push({admin: path.join(root, name), dir: path.dirname(path.resolve(root, name, gitdir))})
  }
  return out
}
