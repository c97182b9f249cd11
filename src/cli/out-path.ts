import {statSync} from 'node:fs'
import path from 'node:path'
import {InvalidInputError} from '../errors/index.js'
import {discoverRepo} from '../store/index.js'
import {within} from '../paths.js'
import {linkOnTheWay} from '../work-file.js'

/**
 * A path a flag (or variable) names for exp to write (--out, --junit, --comment, --events), resolved and
 * checked before any work is done: not empty (`--out "$OUTDIR"` with OUTDIR unset was the
 * current folder, and replaced the user's own report.md there); never over what git keeps in the repository's git folder
 * (`--junit .git/config` would overwrite the repository's configuration, `--events .git/HEAD`
 * break HEAD, `--junit .git/refs/heads/x` make a branch), not below a file, and not through a
 * folder of the work tree that is a symbolic link. A path outside the repository is the user's
 * choice, like `git archive -o`. Returns the absolute path. (The file itself is written by
 * writeOutputFile: a link at its name is replaced, never written through.)
 */
export function outputPath(cwd: string, value: string, flag: string, kind: 'file' | 'folder'): string {
  // `--out X`, or `EXP_EVENTS=X` for a path from the environment
  const named = (v: string) => (flag.startsWith('-') ? `${flag} ${v}` : `${flag}=${v}`)
  if (!value.trim()) throw new InvalidInputError(`${flag} is empty${value ? ` (${JSON.stringify(value)})` : ''}: it names no ${kind}`, {flag, path: value}, `name the ${kind} to write, e.g. ${named(kind === 'folder' ? 'results' : 'results/FILE')} (an unset shell variable gives an empty value)`)
  const abs = path.resolve(cwd, value)
  const shown = (p: string) => (within(p, cwd) ? path.relative(cwd, p) || '.' : p)
  let repo: ReturnType<typeof discoverRepo> | undefined
  try {
    repo = discoverRepo(cwd)
  } catch {
    repo = undefined
  }
  // a bare repository is all git folder: exp writes where it is told there
  if (repo?.workDir) {
    for (const g of new Set([repo.gitDir, repo.commonDir])) {
      if (within(abs, g) && gitOwned(path.relative(g, abs))) throw new InvalidInputError(`${named(value)} is git's own, in the repository's git folder (${shown(g)}): exp never writes there`, {flag, path: value}, `choose a path in the work tree or outside the repository, e.g. ${named(kind === 'folder' ? 'results' : `results/${path.basename(abs)}`)}`)
    }
  }
  // a folder on the way that is a symbolic link in the work tree (a repository, or a pull
  // request checked out, can hold `results -> ~/.ssh`) would take the files elsewhere
  const link = repo?.workDir ? linkOnTheWay(repo.workDir, abs, kind === 'folder') : undefined
  if (link) throw new InvalidInputError(`${named(value)}: ${shown(link.at)} is a symbolic link (to ${link.to}), and exp writes its results only into real folders of the work tree`, {flag, path: value}, 'remove the link (`git rm` it if it is committed), or pass a path outside the repository')
  const st = statOf(abs)
  if (st && kind === 'file' && st.isDirectory()) throw new InvalidInputError(`${named(value)} is a folder; a file is needed`, {flag, path: value}, `name a file, e.g. ${named(path.join(value, 'out'))}`)
  if (st && kind === 'folder' && !st.isDirectory()) throw new InvalidInputError(`${named(value)} is a file; a folder is needed`, {flag, path: value}, 'name a new or existing folder')
  // the nearest existing ancestor must be a folder, or nothing can be created below it
  for (let up = path.dirname(abs); !st; up = path.dirname(up)) {
    const s = statOf(up)
    if (s) {
      if (!s.isDirectory()) throw new InvalidInputError(`${named(value)}: ${shown(up)} is a file, so nothing can be written below it`, {flag, path: value}, 'choose a path whose folders exist or can be created')
      break
    }
    if (path.dirname(up) === up) break
  }
  return abs
}

/**
 * What git (or exp, under .git/exp: the cache, work trees, the held-out key) keeps in the git
 * folder: HEAD, config, index, refs/, objects/... A new file of one's own there (.git/report,
 * .git/events.jsonl) is out of the work tree's way and harmless. In any case of letters: on a
 * file system that ignores case (macOS, Windows), `.git/Hooks` is `.git/hooks`.
 */
const GIT_OWNED = /^(?:HEAD|config|config\.worktree|index|packed-refs|shallow|description|COMMIT_EDITMSG|[A-Z_]+_HEAD|objects|refs|logs|hooks|info|modules|worktrees|rr-cache|branches|remotes|sequencer|rebase-.*|lfs|exp)$/i

function gitOwned(rel: string): boolean {
  return rel === '' || GIT_OWNED.test(rel.split(path.sep)[0]!)
}

function statOf(p: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(p)
  } catch {
    return undefined
  }
}

/** The default folder of a command's results: results/ at the top of the project, as `cwd` shows it. */
export function resultsFolder(cwd: string, root: string): string {
  return path.relative(cwd, path.join(root, 'results')) || '.'
}
