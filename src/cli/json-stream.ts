import fs from 'node:fs'
import type {Writable} from 'node:stream'
import type {LedgerEntry} from '../store/index.js'
import {markClosed, outputFailure} from './broken-pipe.js'

const BATCH = 1000
const COMMA = 0x2c
const NEWLINE = 0x0a

/**
 * Write records as a JSON array, one record per line, from their stored bytes (canonical
 * JSON), a batch at a time: a ledger of any size is never one string in memory, and no record
 * is parsed and serialized again on the way. Each batch is copied into one buffer, a record
 * and its `,\n` after another, which is written and reused for the next: two views a record
 * (200,000 Buffer objects in a `--json` of 100,000) took ~75 ms of a warm read's profile, the
 * copies take ~20.
 */
export async function writeJsonRecords(out: Writable & {fd?: number}, entries: readonly LedgerEntry[], bytes: (es: readonly LedgerEntry[]) => Buffer[]): Promise<void> {
  if (!entries.length) return writeParts(out, [Buffer.from('[]\n')])
  await writeParts(out, [Buffer.from('[\n')])
  let slab = Buffer.alloc(0)
  for (let i = 0; i < entries.length; i += BATCH) {
    const got = bytes(entries.slice(i, i + BATCH))
    let size = 0
    for (const b of got) size += b.length + 1
    if (slab.length < size) slab = Buffer.allocUnsafe(Math.max(size, slab.length * 2))
    let n = 0
    for (const b of got) {
      // a record file ends with a newline: the separator goes before it (the record copied
      // whole by TypedArray#set, V8's own copy: Buffer#copy's checks cost more than the bytes)
      slab.set(b, n)
      n += b.length
      slab[n - 1] = COMMA
      slab[n++] = NEWLINE
    }
    // (the last record of all has no separator)
    if (i + BATCH >= entries.length) slab[--n - 1] = NEWLINE
    // writeParts is done with the bytes when it returns (written, or copied into the stream)
    await writeParts(out, [slab.subarray(0, n)])
  }
  await writeParts(out, [Buffer.from(']\n')])
}

/**
 * Buffers to the stream without joining them: straight to its file descriptor with writev(2)
 * when it has one (stdout to a file or pipe is synchronous in Node on Linux anyway), else
 * through the stream, waiting for it to drain.
 */
async function writeParts(out: Writable & {fd?: number}, parts: Buffer[]): Promise<void> {
  if (typeof out.fd === 'number' && out.writableLength === 0) {
    let k = 0
    try {
      while (k < parts.length) {
        const iov = parts.slice(k, k + 1024)
        let n = fs.writevSync(out.fd, iov)
        // a short write: skip what went out, go on with the rest
        while (iov.length && n >= iov[0]!.length) n -= iov.shift()!.length
        if (iov.length) {
          iov[0] = iov[0]!.subarray(n)
          parts.splice(k, Math.min(1024, parts.length - k), ...iov)
          continue
        }
        k += 1024
      }
      return
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') markClosed(out)
      // (a full disk, an I/O error: the user's to fix, src/cli/broken-pipe.ts)
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw (out === process.stdout && outputFailure(e)) || e
      parts = parts.slice(k)
    }
  }
  await new Promise<void>((resolve, reject) => {
    const fail = (e: Error) => {
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') markClosed(out)
      reject(e)
    }
    // a reader gone while we wait for 'drain' ends the wait too (drain would never come)
    // (a copy: the caller reuses its buffer once this returns, and the stream may hold on to what it is given)
    const ok = out.write(Buffer.concat(parts), e => (e ? fail(e) : undefined))
    if (ok) resolve()
    else out.once('drain', resolve)
  })
}
