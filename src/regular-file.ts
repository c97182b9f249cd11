import fs from 'node:fs'
import {open} from 'node:fs/promises'
import path from 'node:path'

/**
 * Files exp reads and writes by name, where someone else may have put something that is not a
 * regular file: a FIFO blocks an open for reading until a writer comes (and one for writing
 * until a reader comes), for good — not even SIGTERM ended it, the signal's handler waits for
 * the blocked thread —, a link to /dev/zero is read until memory runs out, and a link to a
 * file elsewhere is written through. Used for a work tree's files (work-file.ts) and for
 * exp's own files under `.git/exp` (the cache, its lock, the tips seen).
 */

const {O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND} = fs.constants
/** (not on Windows, where neither FIFOs nor these flags exist) */
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0

/** A name that is not a regular file (`what` it is instead), or a regular file larger than exp reads. */
export class NotRegularFile extends Error {
  constructor(
    readonly file: string,
    /** "is a FIFO, not a regular file", "is 20000000 bytes, more than the 16777216 …" */
    readonly reason: string,
    /** a regular file's size and the bound it is over, when it is too large */
    readonly size?: number,
    readonly limit?: number,
  ) {
    super(`${path.basename(file)} ${reason}`)
  }

  /** whether the file is regular but too large */
  get tooLarge(): boolean {
    return this.size !== undefined
  }
}

/** What a name is when it is not a regular file: "a folder", "a FIFO", … */
export function whatItIs(st: fs.Stats): string {
  return st.isDirectory() ? 'a folder' : st.isFIFO() ? 'a FIFO' : st.isCharacterDevice() ? 'a character device' : st.isBlockDevice() ? 'a block device' : st.isSocket() ? 'a socket' : st.isSymbolicLink() ? 'a symbolic link' : 'not a file'
}

/** Throws NotRegularFile when `st` is not a regular file of at most `max` bytes. */
export function refuseUnlessRegular(file: string, st: fs.Stats, max = Infinity, limitOf = 'exp reads of it'): void {
  if (!st.isFile()) throw new NotRegularFile(file, `is ${whatItIs(st)}, not a regular file`)
  if (st.size > max) throw new NotRegularFile(file, `is ${st.size} bytes, more than the ${max} bytes ${limitOf}`, st.size, max)
}

/**
 * Open a file for reading, only when it is a regular file of at most `max` bytes (checked on
 * the open file itself, so the name cannot change in between). O_NONBLOCK makes the open of a
 * FIFO return at once and changes nothing for a regular file.
 */
export function openRegularSync(file: string, max = Infinity): number {
  const fd = fs.openSync(file, O_RDONLY | O_NONBLOCK)
  let ok = false
  try {
    refuseUnlessRegular(file, fs.fstatSync(fd), max)
    ok = true
  } finally {
    if (!ok) fs.closeSync(fd)
  }
  return fd
}

/** The whole of such a file (openRegularSync), as UTF-8 text. */
export function readRegularSync(file: string, max: number): string {
  const fd = openRegularSync(file, max)
  try {
    return fs.readFileSync(fd, 'utf8')
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * readRegularSync's asynchronous twin, as bytes: a regular file of at most `max` bytes, checked
 * on the open file (NotRegularFile otherwise). `limitOf` names whose bound `max` is, for the message.
 */
export async function readRegular(file: string, max = Infinity, limitOf?: string): Promise<Buffer> {
  const fh = await open(file, O_RDONLY | O_NONBLOCK)
  try {
    refuseUnlessRegular(file, await fh.stat(), max, limitOf)
    return await fh.readFile()
  } finally {
    await fh.close()
  }
}

/**
 * Create `file` anew for writing, whatever is at its name (a FIFO, a link, a folder, an old
 * file: removed first, never written through). O_EXCL: the file opened is the one this call
 * made (were something put there in between, the open fails instead).
 */
export function createRegularSync(file: string, mode = 0o666): number {
  fs.rmSync(file, {force: true, recursive: true})
  return fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode)
}

/** Write a new file at `file` (createRegularSync) with `data`. */
export function writeNewFileSync(file: string, data: string | Uint8Array): void {
  const fd = createRegularSync(file)
  try {
    fs.writeFileSync(fd, data)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Open an existing file to append to it, only when it is a regular file (a link at its name is
 * refused, not followed: ELOOP); cut to `size` bytes first when given (on the open file, not by
 * name: a truncate by name follows a link).
 */
export function openAppendSync(file: string, size?: number): number {
  const fd = fs.openSync(file, O_WRONLY | O_APPEND | O_NONBLOCK | O_NOFOLLOW)
  let ok = false
  try {
    refuseUnlessRegular(file, fs.fstatSync(fd))
    if (size !== undefined) fs.ftruncateSync(fd, size)
    ok = true
  } finally {
    if (!ok) fs.closeSync(fd)
  }
  return fd
}

/**
 * Replace `file` with one holding `data`: written beside it (writeNewFileSync) and renamed over
 * it, so a reader never sees half a file. A folder at the name (which a rename cannot replace:
 * every later write failed) is removed first; the temporary file never outlives a failure.
 */
export function replaceFileSync(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`
  try {
    writeNewFileSync(tmp, data)
    try {
      fs.renameSync(tmp, file)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'EISDIR' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e
      fs.rmSync(file, {recursive: true, force: true})
      fs.renameSync(tmp, file)
    }
  } catch (e) {
    fs.rmSync(tmp, {force: true, recursive: true})
    throw e
  }
}
