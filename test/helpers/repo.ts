import {execFile, execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {accessSync, constants, mkdtempSync, openSync, readdirSync, readFileSync, readSync, closeSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** process.env without tap's own variables: tap's NODE_OPTIONS would instrument every child node process. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  // (and not the CI machine's own CI variables: a test that wants CI says so, as runJob does)
  for (const [k, v] of Object.entries(process.env)) if (k !== 'NODE_OPTIONS' && k !== 'CI' && k !== 'GITHUB_ACTIONS' && !k.startsWith('TAP') && !k.startsWith('_TAP')) env[k] = v
  return env
}

/**
 * Command and arguments that start `node ARGS` without tap's instrumentation. tap's
 * processinfo wraps child_process and puts its loader into NODE_OPTIONS of every child,
 * which triples a child's start-up (about 0.75 s instead of 0.25 s); `env -u` drops it
 * after the wrapper ran. The pid is node's (env execs it), so signals reach it.
 */
export function node(args: readonly string[]): [string, string[]] {
  return ['/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, ...args]]
}

/**
 * Command and arguments that start `cmd ARGS` (a shell, npm, a script that may start node)
 * without tap's instrumentation: tap's wrapper puts its loader into NODE_OPTIONS of every
 * child, whatever the command, and every node process that child starts inherits it (a
 * README tour or a workflow job starts dozens of `exp`). As node() does for node.
 */
export function plain(cmd: string, args: readonly string[]): [string, string[]] {
  return ['/usr/bin/env', ['-u', 'NODE_OPTIONS', cmd, ...args]]
}

/**
 * PATH with the folder of the Python that `python3` runs first, when `python3` on PATH is a
 * script: a pyenv shim is a bash script that starts ~20 processes (~0.3 s) before Python
 * does, and the contract tests run hundreds of evaluators and agents. The same
 * interpreter: resolved once per machine by asking it (sys.executable) and remembered in a
 * file under the temp folder that every test process reads. Its own folder, not a link
 * under the temp folder: an agent's sandbox hides /tmp. PATH as it is when python3 is a binary.
 */
function fastPythonPath(): string | undefined {
  const PATH = process.env.PATH ?? ''
  const first = PATH.split(path.delimiter).map(d => path.join(d, 'python3')).find(isExecutable)
  if (!first) return undefined
  const head = Buffer.alloc(2)
  const fd = openSync(first, 'r')
  try {
    readSync(fd, head, 0, 2, 0)
  } finally {
    closeSync(fd)
  }
  if (head.toString('latin1') !== '#!') return undefined
  const memo = path.join(os.tmpdir(), `exp-test-python-${createHash('sha256').update(PATH).digest('hex').slice(0, 16)}.txt`)
  let dir: string | undefined
  try {
    dir = readFileSync(memo, 'utf8')
  } catch {
    // not asked yet on this machine
  }
  if (!dir || !isExecutable(path.join(dir, 'python3'))) {
    const exe = execFileSync(first, ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'}).trim()
    if (!path.isAbsolute(exe) || !isExecutable(path.join(path.dirname(exe), 'python3'))) return undefined
    dir = path.dirname(exe)
    const tmp = `${memo}.${process.pid}`
    writeFileSync(tmp, dir)
    renameSync(tmp, memo)
  }
  return `${dir}${path.delimiter}${PATH}`
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Environment for child processes in tests: a fixed git identity, no tap instrumentation, python3 without a shim. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...cleanEnv(),
  ...(() => {
    const fast = fastPythonPath()
    return fast ? {PATH: fast} : {}
  })(),
  GIT_AUTHOR_NAME: 'exp test',
  GIT_AUTHOR_EMAIL: 'test@exp.invalid',
  GIT_COMMITTER_NAME: 'exp test',
  GIT_COMMITTER_EMAIL: 'test@exp.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  EXP_LANE: '',
}

export function git(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, {cwd, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024}, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')}: ${stderr || err.message}`))
      else resolve(stdout)
    })
  })
}

/** The bytes of every file of a work tree outside .git (what a leak test searches besides the objects). */
export function workingFiles(dir: string): Buffer[] {
  const files: Buffer[] = []
  for (const e of readdirSync(dir, {withFileTypes: true})) {
    if (e.name === '.git') continue
    const p = path.join(dir, e.name)
    if (e.isDirectory()) files.push(...workingFiles(p))
    else files.push(readFileSync(p))
  }
  return files
}

/** A temp folder removed when the test ends. */
export function tempDir(t: {teardown(fn: () => void): void}, prefix = 'exp-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  // retried: a git process a test started in the background (gc --auto) may still be writing there
  t.teardown(() => rmSync(dir, {recursive: true, force: true, maxRetries: 10, retryDelay: 100}))
  return dir
}

/** A fresh git repository (work tree) in a temp folder, with one commit on main. */
export async function makeRepo(t: {teardown(fn: () => void): void}, opts: {bare?: boolean; empty?: boolean} = {}): Promise<string> {
  const dir = tempDir(t)
  if (opts.bare) {
    await git(dir, 'init', '-q', '--bare', '-b', 'main')
    return dir
  }
  await git(dir, 'init', '-q', '-b', 'main')
  await git(dir, 'config', 'user.name', 'exp test')
  await git(dir, 'config', 'user.email', 'test@exp.invalid')
  if (!opts.empty) await git(dir, 'commit', '-q', '--allow-empty', '-m', 'init')
  return dir
}

/** Run git with stdin input and extra env; resolves trimmed stdout. */
export function gitIn(cwd: string, args: string[], input: string | undefined, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, {cwd, env: {...GIT_ENV, ...env}, maxBuffer: 64 * 1024 * 1024}, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')}: ${stderr || err.message}`))
      else resolve(stdout.trim())
    })
    child.stdin!.on('error', () => undefined)
    child.stdin!.end(input ?? '')
  })
}

/** Write blobs of any bytes (no filters) into a repository's objects with one git; their ids in order. */
export async function writeBlobs(repo: string, contents: readonly Buffer[]): Promise<string[]> {
  const dir = mkdtempSync(path.join(repo, '.git', 'blobs-'))
  const files = contents.map((c, i) => {
    const file = path.join(dir, String(i))
    writeFileSync(file, c)
    return file
  })
  const out = (await gitIn(repo, ['hash-object', '-w', '--no-filters', '--stdin-paths'], `${files.join('\n')}\n`)).split('\n')
  rmSync(dir, {recursive: true})
  return out
}

/**
 * Commit one file onto a lane with plain git plumbing, as a person could by hand: a regular
 * file, a symbolic link to `content`, or a submodule at commit `content` (`mode`); `also`
 * adds a second entry, a submodule, in the same commit.
 */
export async function handCommit(repo: string, lane: string, file: string, content: string, message: string, o: {mode?: '100644' | '120000' | '160000'; also?: {file: string; mode: '160000'; oid: string}} = {}): Promise<string> {
  const ref = `refs/research/lanes/${lane}`
  const parent = await gitIn(repo, ['rev-parse', '-q', '--verify', ref], undefined).catch(() => '')
  const env = {GIT_INDEX_FILE: path.join(repo, '.git', `hand-${process.pid}-${Date.now()}.idx`)}
  if (parent) await gitIn(repo, ['read-tree', parent], undefined, env)
  // (a submodule's entry names a commit: `content` is its id)
  const blob = o.mode === '160000' ? content : await gitIn(repo, ['hash-object', '-w', '--stdin'], content, env)
  await gitIn(repo, ['update-index', '--add', '--cacheinfo', `${o.mode ?? '100644'},${blob},${file}`], undefined, env)
  if (o.also) await gitIn(repo, ['update-index', '--add', '--cacheinfo', `${o.also.mode},${o.also.oid},${o.also.file}`], undefined, env)
  const tree = await gitIn(repo, ['write-tree'], undefined, env)
  const commit = await gitIn(repo, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], undefined, env)
  await gitIn(repo, ['update-ref', ref, commit], undefined, env)
  rmSync(env.GIT_INDEX_FILE, {force: true})
  return commit
}
