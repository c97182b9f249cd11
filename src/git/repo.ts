import {existsSync, readFileSync, statSync} from 'node:fs'
import {spawnSync} from 'node:child_process'
import path from 'node:path'
import {NotARepoError, UnsupportedRepoError} from '../errors/index.js'
import {configValue, parseGitConfig} from './config.js'

/** Where a repository lives on disk. `commonDir` holds objects and shared refs; `gitDir` HEAD/index of this work tree. */
export interface RepoPaths {
  /** the work tree, or undefined for a bare repository */
  workDir?: string
  gitDir: string
  commonDir: string
  bare: boolean
}

function isGitDir(dir: string): boolean {
  if (!existsSync(path.join(dir, 'HEAD'))) return false
  // a linked work tree's git dir has only HEAD, index and `commondir`; objects and refs are shared
  return existsSync(path.join(dir, 'commondir')) || (existsSync(path.join(dir, 'objects')) && existsSync(path.join(dir, 'refs')))
}

function commonOf(gitDir: string): string {
  const f = path.join(gitDir, 'commondir')
  if (!existsSync(f)) return gitDir
  return path.resolve(gitDir, readFileSync(f, 'utf8').trim())
}

function gitFileTarget(file: string): string | undefined {
  const text = readFileSync(file, 'utf8')
  const m = /^gitdir:\s*(.+)$/m.exec(text)
  return m ? path.resolve(path.dirname(file), m[1]!.trim()) : undefined
}

/**
 * Find the repository containing `start`, the way git does: honour GIT_DIR, then walk up
 * looking for a `.git` folder or file (linked work trees), or a folder that is itself a
 * bare repository.
 */
export function discoverRepo(start: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): RepoPaths {
  const repo = findRepo(start, env)
  if (!env.GIT_DIR) assertOwned(repo, env)
  assertSupported(repo.commonDir)
  return repo
}

/**
 * git refuses a repository it found that someone else owns ("dubious ownership", unless
 * `safe.directory` names it): its `.git/config` could make git run that person's programs
 * (core.fsmonitor, filters, core.sshCommand). exp runs git in it too, so it refuses the same
 * repositories. The owners are compared here (a stat or two); only when one differs is git
 * asked, so that `safe.directory` is honoured exactly as this git reads it. (With GIT_DIR set,
 * as with git, there is no check.)
 */
function assertOwned(repo: RepoPaths, env: NodeJS.ProcessEnv): void {
  if (typeof process.getuid !== 'function') return
  const uid = process.getuid()
  // as root, git takes the owner sudo was run by (SUDO_UID) as the user
  const sudo = uid === 0 && env.SUDO_UID && /^\d+$/.test(env.SUDO_UID) ? Number(env.SUDO_UID) : undefined
  const dirs = [repo.workDir, repo.gitDir].filter((d): d is string => d !== undefined)
  const foreign = dirs.find(d => {
    const owner = statSync(d, {throwIfNoEntry: false})?.uid
    return owner !== undefined && owner !== uid && owner !== sudo
  })
  if (!foreign) return
  const r = spawnSync('git', ['rev-parse', '--absolute-git-dir'], {cwd: repo.workDir ?? repo.gitDir, env: {...env, GIT_DIR: undefined, GIT_WORK_TREE: undefined}, encoding: 'utf8'})
  if (r.error || !/dubious ownership/.test(r.stderr ?? '')) return
  const dir = repo.workDir ?? repo.gitDir
  throw new UnsupportedRepoError(dir, `${foreign} is owned by someone else (uid ${statSync(foreign).uid}), and git refuses to work in it ("dubious ownership": its configuration could run that user's programs)`, `if you trust its owner, tell git so, as git says: \`git config --global --add safe.directory ${dir}\`; nothing was read or written`)
}

/**
 * exp writes and reads objects by their SHA-1 names (isomorphic-git, and its own writer) and
 * refs as files (`refs/`, `packed-refs`, git's lockfile protocol): a repository of SHA-256
 * names (`git init --object-format=sha256`, or `init.defaultObjectFormat`) or of reftable
 * refs (`--ref-format=reftable`, git 2.45+) is refused before anything is read or written.
 * Without this an append wrote SHA-1 objects and a lane ref git could not read (or a ref git
 * never looks at), and every read failed.
 */
function assertSupported(commonDir: string): void {
  let text: string
  try {
    text = readFileSync(path.join(commonDir, 'config'), 'utf8')
  } catch {
    return
  }
  const cfg = parseGitConfig(text)
  const format = configValue(cfg, 'extensions.objectFormat')
  if (format !== undefined && format.toLowerCase() !== 'sha1') throw new UnsupportedRepoError(commonDir, `its objects are named by ${format} (extensions.objectFormat)`, 'exp works in repositories of SHA-1 object names, git\'s default: run it in one made with `git init --object-format=sha1` (git cannot convert a repository in place); nothing was read or written')
  const refs = configValue(cfg, 'extensions.refStorage')
  if (refs !== undefined && refs.toLowerCase() !== 'files') throw new UnsupportedRepoError(commonDir, `its refs are stored as ${refs} (extensions.refStorage)`, 'exp works in repositories whose refs are files, git\'s default: convert this one with `git refs migrate --ref-format=files` (git 2.46+); nothing was read or written')
}

function findRepo(start: string, env: NodeJS.ProcessEnv): RepoPaths {
  if (env.GIT_DIR) {
    const gitDir = path.resolve(start, env.GIT_DIR)
    if (!isGitDir(gitDir)) throw new NotARepoError(gitDir)
    const workDir = env.GIT_WORK_TREE ? path.resolve(start, env.GIT_WORK_TREE) : undefined
    return {gitDir, commonDir: commonOf(gitDir), workDir, bare: !workDir && isBareConfig(gitDir)}
  }
  let dir = path.resolve(start)
  for (;;) {
    const dotgit = path.join(dir, '.git')
    if (existsSync(dotgit)) {
      const st = statSync(dotgit)
      const gitDir = st.isDirectory() ? dotgit : gitFileTarget(dotgit)
      if (gitDir && isGitDir(gitDir)) return {workDir: dir, gitDir, commonDir: commonOf(gitDir), bare: false}
    }
    if (isGitDir(dir)) return {gitDir: dir, commonDir: commonOf(dir), bare: true}
    const up = path.dirname(dir)
    if (up === dir) throw new NotARepoError(path.resolve(start))
    dir = up
  }
}

function isBareConfig(gitDir: string): boolean {
  try {
    return /^\s*bare\s*=\s*true\s*$/m.test(readFileSync(path.join(gitDir, 'config'), 'utf8'))
  } catch {
    return false
  }
}
