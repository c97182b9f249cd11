import {lstatSync, readlinkSync, type Stats} from 'node:fs'
import path from 'node:path'
import {stat} from 'node:fs/promises'
import {ExpError} from './errors/index.js'
import {NotRegularFile, readRegular, refuseUnlessRegular} from './regular-file.js'
import {shownFrom, within} from './paths.js'

/**
 * The most exp reads of one file of a work tree (a SKILL.md, a scenario, a contract, a
 * `.research/` file): the same bound as a file read from a commit (workspace/port.ts, FILE_MAX).
 */
export const WORK_FILE_MAX = 16 * 1024 * 1024

/**
 * Whether a file of a work tree can be read: a regular file of at most `max` bytes. A
 * repository can commit a symbolic link to `/dev/zero` or `/dev/urandom` as `SKILL.md` or a
 * scenario, and a clone can hold a FIFO there: read whole, the first never ends (the command
 * hung while its memory grew) and the second waits for a writer. Throws E_INVALID_INPUT or
 * E_TOO_LARGE naming the file; a file that is not there throws as `stat` does (ENOENT), for
 * the caller to say what is missing.
 */
export async function checkWorkFile(file: string, max = WORK_FILE_MAX): Promise<void> {
  const st = await stat(file)
  try {
    refuseUnlessRegular(file, st, max, LIMIT_OF)
  } catch (e) {
    throw refusal(file, e)
  }
}

/** Why a file cannot be read (checkWorkFile's refusal, without the file name), or undefined when it can or is missing. */
export async function workFileRefusal(file: string, max = WORK_FILE_MAX): Promise<string | undefined> {
  try {
    await checkWorkFile(file, max)
    return undefined
  } catch (e) {
    return (e as ExpError).data?.reason as string | undefined
  }
}

/** Read a file of a work tree after checkWorkFile's checks (made on the open file itself: regular-file.ts). */
export async function readWorkFile(file: string, max = WORK_FILE_MAX): Promise<Buffer> {
  try {
    return await readRegular(file, max, LIMIT_OF)
  } catch (e) {
    throw refusal(file, e)
  }
}

const LIMIT_OF = 'exp reads of one file of a work tree'

/** A NotRegularFile as the user's error naming the file (anything else as it is). */
function refusal(file: string, e: unknown): unknown {
  if (!(e instanceof NotRegularFile)) return e
  const shown = shownFrom(process.cwd(), file)
  if (e.tooLarge) return new ExpError('E_TOO_LARGE', `${shown} ${e.reason}`, {data: {file: shown, bytes: e.size, limit: e.limit, reason: e.reason}, hint: 'keep the files exp reads (skills, scenarios, contracts, .research/ files) small; large data belongs in files the evaluator reads'})
  const reason = `${e.reason}: exp reads only regular files of a work tree`
  return new ExpError('E_INVALID_INPUT', `${shown} ${reason}`, {data: {file: shown, reason}, hint: `replace ${shown} with a regular file (\`ls -l ${shown}\` shows what it is, and where a link points)`})
}

/**
 * The first folder on the way from `root` to `target` (both absolute; `target` itself too
 * when `self`) that is a symbolic link, with where it points: a repository can commit
 * `.research -> ~/.config/app` or `results -> ~/.ssh`, and a write through it lands outside
 * the work tree. Undefined when there is none, or when `target` is not below `root`.
 */
export function linkOnTheWay(root: string, target: string, self = false): {at: string; to: string} | undefined {
  const at = firstOnTheWay(root, target, self, st => st.isSymbolicLink())
  return at === undefined ? undefined : {at, to: readlinkSync(at)}
}

/**
 * The first name on the way from `root` to `target` (both absolute; `target` not included)
 * that is there and is not a folder: a write of `target` would fail at it (ENOTDIR). Checked
 * before work that a failed write would waste. Undefined when there is none.
 */
export function fileOnTheWay(root: string, target: string): string | undefined {
  return firstOnTheWay(root, target, false, st => !st.isDirectory())
}

/** The first name from `root` down to `target` (itself too when `self`) whose lstat `hit` accepts; undefined at the first name that is not there, or when `target` is not below `root`. */
function firstOnTheWay(root: string, target: string, self: boolean, hit: (st: Stats) => boolean): string | undefined {
  if (!within(target, root)) return undefined
  const parts = path.relative(root, target).split(path.sep).filter(Boolean)
  for (let i = 0; i < parts.length - (self ? 0 : 1); i++) {
    const at = path.join(root, ...parts.slice(0, i + 1))
    try {
      if (hit(lstatSync(at))) return at
    } catch {
      return undefined // (nothing there yet: nothing further down is there either)
    }
  }
  return undefined
}

/** Refuse to write `target` when a folder on the way to it in the work tree (or, with `self`, the name itself) is a symbolic link. */
export function refuseLinkOnTheWay(root: string, target: string, self = false): void {
  const link = linkOnTheWay(root, target, self)
  if (!link) return
  const shown = path.relative(root, link.at)
  throw new ExpError('E_INVALID_INPUT', `${shown} is a symbolic link (to ${link.to}), and exp writes only into real folders of the work tree (${path.relative(root, target)} would land outside it)`, {data: {file: shown, link: link.to}, hint: `remove the link (\`git rm ${shown}\` if it is committed), then run the command again`})
}
