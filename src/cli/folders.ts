import {existsSync} from 'node:fs'
import {stat} from 'node:fs/promises'
import path from 'node:path'
import {NotFoundError} from '../errors/index.js'
import {loadConfig} from '../research/files.js'
import {discoverRepo} from '../store/index.js'

/**
 * The folder a command's defaults (skills/, scenarios/, results/, .research/) are relative to:
 * the nearest folder from `cwd` up to the repository's top that holds `.research/` or
 * `marker`, else the top. So a subfolder of a repository works like its top, and a project
 * kept in a subfolder of a larger repository is found too.
 */
export function projectRoot(cwd: string, top: string, marker?: string): string {
  const stop = path.resolve(top)
  for (let d = path.resolve(cwd); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, '.research')) || (marker && existsSync(path.join(d, marker)))) return d
    if (d === stop || path.dirname(d) === d || !d.startsWith(stop)) return stop
  }
}

/**
 * The scenarios folder a command reads: the one given (relative to the current folder), else
 * the repository's (`scenarios` of .research/config.yaml, else scenarios/ at the top of the
 * repository, from any subfolder). A folder that is not there is a clear error naming it.
 */
export async function scenariosFolder(given: string | undefined, o: {cwd: string; root: string}): Promise<string> {
  const dir = given !== undefined ? path.resolve(o.cwd, given) : path.join(o.root, (await loadConfig(o.root)).scenarios ?? 'scenarios')
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
    const shown = path.relative(o.cwd, dir) || '.'
    throw new NotFoundError('scenarios folder', shown.startsWith('..') ? dir : shown, given !== undefined ? 'pass an existing folder of scenario YAML files' : inRepository(o.cwd) ? 'this repository has no scenarios yet: `exp init --example onboarding` brings the built-in ones, or pass the folder' : 'this folder is in no git repository: `git init` (or a clone), then `exp init --example onboarding` brings the built-in scenarios; or pass a folder of scenario YAML files')
  }
  return dir
}

/** Whether `cwd` is in a git repository (the hints of commands that also work on plain folders say what to run first). */
export function inRepository(cwd: string): boolean {
  try {
    discoverRepo(cwd)
    return true
  } catch {
    return false
  }
}
