import {stat} from 'node:fs/promises'
import path from 'node:path'
import {NotFoundError} from '../errors/index.js'
import {loadConfig} from '../research/files.js'

/**
 * The scenarios folder a command reads: the one given (relative to the current folder), else
 * the repository's (`scenarios` of .research/config.yaml, else scenarios/ at the top of the
 * repository, from any subfolder). A folder that is not there is a clear error naming it.
 */
export async function scenariosFolder(given: string | undefined, o: {cwd: string; root: string}): Promise<string> {
  const dir = given !== undefined ? path.resolve(o.cwd, given) : path.join(o.root, (await loadConfig(o.root)).scenarios ?? 'scenarios')
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
    const shown = path.relative(o.cwd, dir) || '.'
    throw new NotFoundError('scenarios folder', shown.startsWith('..') ? dir : shown, given === undefined ? 'this repository has no scenarios yet: `exp init --example onboarding` brings the built-in ones, or pass the folder' : 'pass an existing folder of scenario YAML files')
  }
  return dir
}
