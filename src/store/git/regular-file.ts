import fs from 'node:fs'
import path from 'node:path'

/** A file of exp's own under `.git/exp` that is not a regular file (a FIFO, a device, a folder). */
export class NotRegularFile extends Error {}

/**
 * Open one of exp's own files under `.git/exp` (the cache's state, index and data, its lock,
 * the tips seen) for reading, refusing anything but a regular file: a FIFO planted at its name
 * blocked the open, and with it every read of the repository, for good (not even SIGTERM ended
 * it: the signal's handler waits for the blocked thread); a link to /dev/zero was read until
 * memory ran out. O_NONBLOCK makes the open of a FIFO return at once and changes nothing for
 * a regular file.
 */
export function openRegular(file: string): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
  let regular = false
  try {
    regular = fs.fstatSync(fd).isFile()
  } finally {
    if (!regular) fs.closeSync(fd)
  }
  if (!regular) throw new NotRegularFile(`${path.basename(file)} is not a regular file`)
  return fd
}

/** The whole of such a file (openRegular), as text. */
export function readRegular(file: string): string {
  const fd = openRegular(file)
  try {
    return fs.readFileSync(fd, 'utf8')
  } finally {
    fs.closeSync(fd)
  }
}
