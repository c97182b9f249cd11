import {existsSync} from 'node:fs'
import path from 'node:path'
import {SealedSplitError} from '../errors/index.js'
import {NotRegularFile, readRegular} from '../regular-file.js'
import {parseKey} from './sealed.js'

/** The repository's own held-out key file: inside the git folder, never in the work tree, never pushed. */
export function defaultKeyFile(commonDir: string): string {
  return path.join(commonDir, 'exp', 'holdout.key')
}

export interface HoldoutKey {
  key: Buffer
  /** where it came from, for messages (never the key itself) */
  source: string
}

export interface KeyLookup {
  env?: NodeJS.ProcessEnv
  /** the repository's default key file (`.git/exp/holdout.key`), outside the work tree */
  defaultFile?: string
}

/**
 * The held-out key, from (in order) EXP_HOLDOUT_KEY, the file EXP_HOLDOUT_KEY_FILE names,
 * or the repository's own key file. Undefined when there is none: the caller decides
 * whether that is an error (a run of the held-out split) or a statement (the gate).
 */
export async function findHoldoutKey(o: KeyLookup): Promise<HoldoutKey | undefined> {
  const env = o.env ?? process.env
  if (env.EXP_HOLDOUT_KEY?.trim()) return {key: parseKey(env.EXP_HOLDOUT_KEY, 'EXP_HOLDOUT_KEY'), source: 'EXP_HOLDOUT_KEY'}
  const file = env.EXP_HOLDOUT_KEY_FILE?.trim() || (o.defaultFile && existsSync(o.defaultFile) ? o.defaultFile : undefined)
  if (!file) return undefined
  if (!existsSync(file)) throw new SealedSplitError(`EXP_HOLDOUT_KEY_FILE names ${file}, which does not exist`, 'point it at the key file, or unset it')
  return {key: parseKey(await readKeyFile(file, env.EXP_HOLDOUT_KEY_FILE?.trim() ? 'EXP_HOLDOUT_KEY_FILE names' : 'the key file is'), file), source: file}
}

/** a key file holds one line: a larger one is no key file */
const KEY_FILE_MAX = 64 * 1024

/** A key file's text: a regular file of at most KEY_FILE_MAX bytes (a FIFO waited for a writer, a link to /dev/zero was read until memory ran out). */
async function readKeyFile(file: string, named: string): Promise<string> {
  try {
    return (await readRegular(file, KEY_FILE_MAX, 'a key file holds')).toString('utf8')
  } catch (e) {
    if (e instanceof NotRegularFile) throw new SealedSplitError(`${named} ${file}, which ${e.reason}`, 'point it at the key file (one line, as `exp seal` printed it), or set EXP_HOLDOUT_KEY')
    throw e
  }
}
