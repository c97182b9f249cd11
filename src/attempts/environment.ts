import {execFile} from 'node:child_process'
import {accessSync, constants as fsConstants, realpathSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {within} from '../paths.js'

const cache = new Map<string, Promise<string>>()

const INTERPRETER = /^(python3?|node|bash|sh|ruby|perl|Rscript|julia)$/

/**
 * `abs --version` (an absolute path, fingerprintable), with nothing of exp's environment (PATH,
 * a HOME that does not exist, LANG=C) and the scratch folder as its folder. It runs outside every sandbox, before the
 * evaluator: nothing of exp's (a token, the held-out key, the repository) may reach it.
 */
function version(abs: string, PATH: string): Promise<string> {
  let hit = cache.get(abs)
  if (!hit) {
    hit = new Promise(resolve => {
      execFile(abs, ['--version'], {timeout: 5000, cwd: os.tmpdir(), env: {PATH, HOME: '/nonexistent', LANG: 'C'}}, (err, stdout, stderr) => resolve(err ? 'unavailable' : `${stdout}${stderr}`.trim().split('\n')[0]!.slice(0, 200)))
    })
    cache.set(abs, hit)
  }
  return hit
}

function executable(p: string): boolean {
  try {
    accessSync(p, fsConstants.X_OK)
    return statSync(p).isFile()
  } catch {
    return false
  }
}

/**
 * Where a bare command name is found on PATH, as an absolute path, if it may be run for a
 * fingerprint: only absolute PATH entries are searched (a relative one, or an empty one, is
 * the current folder: an attempt's own files), and the first match — what a search of PATH
 * runs — must be outside `hide` (the repository's work trees, its git dirs), by its path and by
 * its real path. Otherwise (a name with a slash, a program the repository holds) undefined.
 */
export function fingerprintable(name: string, PATH: string, hide: readonly string[]): string | undefined {
  if (!name || name.includes('/') || name === '.' || name === '..') return undefined
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue
    const abs = path.join(dir, name)
    if (!executable(abs)) continue
    let real: string
    try {
      real = realpathSync(abs)
    } catch {
      return undefined
    }
    const holds = (p: string) => hide.some(h => within(p, h) || within(p, safeReal(h)))
    return holds(abs) || holds(real) ? undefined : abs
  }
  return undefined
}

function safeReal(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/** PATH without relative entries and entries inside `hide`: what a fingerprint's program is given. */
function safePath(PATH: string, hide: readonly string[]): string {
  return PATH.split(path.delimiter)
    .filter(d => d && path.isAbsolute(d) && !hide.some(h => within(d, h)))
    .join(path.delimiter)
}

/**
 * What an observation pins of the machine it ran on: node, OS, git and the command's
 * interpreter. `program` is the contract command's first word, given only once the boundary
 * check let the evaluator run; its version is asked only of a bare interpreter name found on
 * PATH outside `hide` (the repository and its work trees): a `./python3` or `tools/node` is an
 * attempt's own file, which would have run outside the sandbox with exp's environment (a token,
 * the held-out key). Such a program's interpreter is recorded as `unknown`.
 */
export async function environmentFingerprint(program: string | undefined, o: {hide?: readonly string[]; PATH?: string} = {}): Promise<Record<string, string>> {
  const hide = (o.hide ?? []).map(h => path.resolve(h))
  const search = o.PATH ?? process.env.PATH ?? '/usr/bin:/bin'
  const PATH = safePath(search, hide)
  const gitAt = fingerprintable('git', search, hide)
  const out: Record<string, string> = {node: process.version, os: `${os.platform()} ${os.release()} ${os.arch()}`, git: gitAt ? await version(gitAt, PATH) : 'unavailable'}
  if (program && INTERPRETER.test(program.split('/').pop()!)) {
    const abs = fingerprintable(program, search, hide)
    out.interpreter = `${program}: ${abs ? await version(abs, PATH) : 'unknown'}`
  }
  return out
}
