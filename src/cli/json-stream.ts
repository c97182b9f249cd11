import fs from 'node:fs'
import type {Writable} from 'node:stream'
import type {LedgerEntry} from '../store/index.js'
import {markClosed} from './broken-pipe.js'

const BATCH = 1000
const COMMA = Buffer.from(',\n')

/**
 * Write records as a JSON array, one record per line, from their stored bytes (canonical
 * JSON), a batch at a time: a ledger of any size is never one string in memory, and no record
 * is parsed and serialized again on the way.
 */
export async function writeJsonRecords(out: Writable & {fd?: number}, entries: readonly LedgerEntry[], bytes: (es: readonly LedgerEntry[]) => Buffer[]): Promise<void> {
  if (!entries.length) return writeParts(out, [Buffer.from('[]\n')])
  await writeParts(out, [Buffer.from('[\n')])
  for (let i = 0; i < entries.length; i += BATCH) {
    const batch = entries.slice(i, i + BATCH)
    const parts: Buffer[] = []
    bytes(batch).forEach((b, k) => {
      // a record file ends with a newline: the separator goes before it
      parts.push(b.subarray(0, b.length - 1), i + k === entries.length - 1 ? b.subarray(b.length - 1) : COMMA)
    })
    await writeParts(out, parts)
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
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e
      parts = parts.slice(k)
    }
  }
  await new Promise<void>((resolve, reject) => {
    const fail = (e: Error) => {
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') markClosed(out)
      reject(e)
    }
    // a reader gone while we wait for 'drain' ends the wait too (drain would never come)
    const ok = out.write(Buffer.concat(parts), e => (e ? fail(e) : undefined))
    if (ok) resolve()
    else out.once('drain', resolve)
  })
}
