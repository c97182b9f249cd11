import {randomBytes} from 'node:crypto'
import {lstatSync} from 'node:fs'
import {mkdir, rename, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {ExpError, InvalidInputError} from './errors/index.js'
import {shownFrom} from './paths.js'
import {clipped} from './errors/shown.js'
import {errnoWords} from './errors/errno.js'

/**
 * Write a result file (a report, a comment, JUnit XML) whole: into a new file beside it, then
 * renamed over it. A rename replaces what is at the name, a symbolic link included, and never
 * writes through it: a repository (or a pull request checked out in CI) that holds
 * `results/report.md -> ~/.bashrc` or `exp-gate.md -> .git/config` cannot make exp overwrite
 * that file. A reader never sees half a file. Missing folders on the way are made (outputPath
 * has checked the path: no link on the way in the work tree, nothing of git's). What the file
 * system refuses (a folder at the name, no permission, a full disk) is an error naming the file,
 * never "unexpected".
 */
export async function writeOutputFile(file: string, data: string | Buffer): Promise<void> {
  if (folderAtResultFile(file)) throw folderInTheWay(file)
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    await mkdir(path.dirname(file), {recursive: true})
    // wx: created here, never an existing file or link
    await writeFile(tmp, data, {flag: 'wx'})
    await rename(tmp, file)
  } catch (e) {
    await rm(tmp, {force: true}).catch(() => undefined) // (a path that never was: nothing to remove)
    throw writeFailure(file, e)
  }
}

/**
 * Write several result files into one folder: every name is checked first, so a folder at the
 * third name (`out/report.html/`) stops the command before the first file is replaced, not after
 * (a report half new, half old).
 */
export async function writeOutputFiles(dir: string, files: readonly (readonly [string, string | Buffer])[]): Promise<string[]> {
  for (const [name] of files) if (folderAtResultFile(path.join(dir, name))) throw folderInTheWay(path.join(dir, name))
  for (const [name, data] of files) await writeOutputFile(path.join(dir, name), data)
  return files.map(([name]) => path.join(dir, name))
}

/** Whether a folder (not a link to one: a rename replaces a link) is where a result file goes. */
export function folderAtResultFile(file: string): boolean {
  try {
    return lstatSync(file).isDirectory()
  } catch {
    return false
  }
}

const shown = (p: string): string => clipped(shownFrom(process.cwd(), p))

function folderInTheWay(file: string): ExpError {
  return new InvalidInputError(`${shown(file)} is a folder, and exp writes a result file at that name; nothing was written`, {file}, `move or remove the folder ${shown(file)}, or write the results elsewhere (--out)`)
}

/** What the file system said, as an error naming the file (the errors of a path the user chose are the user's to fix, not a bug to report). */
function writeFailure(file: string, e: unknown): unknown {
  const code = (e as {code?: unknown} | null)?.code
  const why = errnoWords(code)
  if (typeof code !== 'string' || why === undefined || code === 'EBADF') return e // (a missing folder: the command's own error, src/cli/base.ts)
  const usage = ['EISDIR', 'ENOTDIR', 'EEXIST', 'EACCES', 'EPERM', 'EROFS', 'ENAMETOOLONG', 'ELOOP'].includes(code)
  return new ExpError(usage ? 'E_INVALID_INPUT' : 'E_WRITE', `cannot write ${shown(file)}: ${why} (${code})`, {data: {file, errno: code}, hint: usage ? `choose a path exp can write a file at (--out), or fix what is at ${shown(file)}` : 'make room or fix the device, then run the command again', cause: e})
}
