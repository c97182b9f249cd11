import {realpathSync, statSync} from 'node:fs'
import path from 'node:path'
import {InvalidInputError} from '../errors/index.js'
import {discoverRepo} from '../store/index.js'
import {realPathOf, within} from '../paths.js'
import {linkOnTheWay} from '../work-file.js'
import {folderAtResultFile} from '../write-output.js'

/**
 * A path a flag (or variable) names for exp to write (--out, --junit, --comment, --events), resolved and
 * checked before any work is done: not empty (`--out "$OUTDIR"` with OUTDIR unset was the
 * current folder, and replaced the user's own report.md there); never over what git keeps in
 * the repository's git folder (`--junit .git/config` would overwrite the repository's
 * configuration, `--events .git/HEAD` break HEAD, `--junit .git/refs/heads/x` make a branch),
 * nor there by way of a symbolic link outside the work tree (`--out ~/alias-of-the-repo/.git/refs/heads`:
 * compared by real paths too); not below a file, and not through a folder of the work tree that
 * is a symbolic link. A path outside the repository is the user's choice, like `git archive -o`.
 * For a folder, `files` are the names of the result files the command writes into it: a folder
 * at one of those names is refused now, not found after the work with some files already
 * replaced. Returns the absolute path. (The file itself is written by writeOutputFile: a link at
 * its name is replaced, never written through.)
 */
export function outputPath(cwd: string, value: string, flag: string, kind: 'file' | 'folder', files: readonly string[] = []): string {
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
    // (by the path as given, and by where it really leads: a symbolic link outside the work
    // tree, an alias of the repository's folder, took report files into .git/refs/heads)
    const real = realPathOf(abs)
    for (const g of new Set([repo.gitDir, repo.commonDir])) {
      const realG = realOr(g)
      const rel = within(abs, g) ? path.relative(g, abs) : within(real, realG) ? path.relative(realG, real) : undefined
      if (rel !== undefined && gitOwned(rel)) throw new InvalidInputError(`${named(value)} is git's own, in the repository's git folder (${shown(g)})${within(abs, g) ? '' : `, where it leads through a symbolic link (${real})`}: exp never writes there`, {flag, path: value}, `choose a path in the work tree or outside the repository, e.g. ${named(kind === 'folder' ? 'results' : `results/${path.basename(abs)}`)}`)
    }
  }
  // a folder on the way that is a symbolic link in the work tree (a repository, or a pull
  // request checked out, can hold `results -> ~/.ssh`) would take the files elsewhere; also
  // when the path reaches the work tree by a link of the user's (an alias of its folder)
  const link = repo?.workDir ? (linkOnTheWay(repo.workDir, abs, kind === 'folder') ?? viaAlias(repo.workDir, abs, kind === 'folder')) : undefined
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
  // (writeOutputFile renames each file over its name: a folder there fails, after the work)
  for (const name of kind === 'folder' ? files : []) {
    const at = path.join(abs, name)
    if (folderAtResultFile(at)) throw new InvalidInputError(`${named(value)}: ${shown(at)} is a folder, and exp writes its result file ${name} there`, {flag, path: value, file: at}, `move or remove the folder ${shown(at)}, or choose another ${flag.startsWith('-') ? flag : 'path'}`)
  }
  return abs
}

function realOr(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/**
 * A symbolic link on the way within the work tree, for a path that reaches the work tree
 * through a link outside it (the shortest folder on its way whose real path is in the work
 * tree is where it enters; from there on it is checked as linkOnTheWay checks a path of the
 * work tree).
 */
function viaAlias(workDir: string, abs: string, self: boolean): {at: string; to: string} | undefined {
  const top = realOr(workDir)
  const parts = abs.split(path.sep).filter(Boolean)
  for (let i = 1; i <= parts.length; i++) {
    let real: string
    try {
      real = realpathSync(path.join(path.sep, ...parts.slice(0, i)))
    } catch {
      return undefined // (nothing there yet: nothing further down is there either)
    }
    if (within(real, top)) return linkOnTheWay(top, path.join(real, ...parts.slice(i)), self)
  }
  return undefined
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
