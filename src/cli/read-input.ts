import fs from 'node:fs'
import net from 'node:net'
import tty from 'node:tty'
import {open, stat} from 'node:fs/promises'
import {ExpError} from '../errors/index.js'
import {onInterrupt} from '../evals/evaluator/interrupt.js'

const {O_RDONLY, O_WRONLY} = fs.constants
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0

/**
 * Read a file a command was given (or stdin, `-`), at most `max` bytes of it. A regular file
 * over the limit is refused before it is read; a stream that is not a regular file (stdin,
 * `/dev/zero`, `/dev/urandom`, a pipe that never ends) is read only up to the limit, so an
 * endless input is an error, not a command that hangs while its memory grows. A FIFO with no
 * writer waits for one, as `cat` does, in a way an interrupt ends (readFifo).
 */
export async function readBounded(file: string, o: {shown: string; max: number; why: string; hint: string}): Promise<Buffer> {
  const {shown, max} = o
  const tooLarge = (size?: number) => new ExpError('E_TOO_LARGE', `${shown} ${size === undefined ? 'is longer than' : `is ${size} bytes, more than`} the ${max} bytes exp reads of it (${o.why})`, {data: {file: shown, limit: max, ...(size === undefined ? {} : {bytes: size})}, hint: o.hint})
  if (file === '-') return readStream(process.stdin, max, () => tooLarge())
  // a FIFO is opened as cat opens one (readFifo): a writer may be waiting for its reader, and an
  // open that does not wait, closed again, would leave that writer without one
  if ((await stat(file)).isFIFO()) return readFifo(file, max, () => tooLarge())
  // (O_NONBLOCK: were a FIFO put at the name since, its open returns at once; nothing changes
  // for a regular file or a device)
  const fh = await open(file, O_RDONLY | O_NONBLOCK)
  let fifo = false
  let terminal = false
  try {
    const st = await fh.stat()
    if (st.isDirectory()) throw new ExpError('E_INVALID_INPUT', `${shown} is a folder, not a file`, {data: {file: shown}, hint: 'name a file to read (or - for stdin)'})
    if (st.isFile() && st.size > max) throw tooLarge(st.size)
    fifo = st.isFIFO()
    terminal = st.isCharacterDevice() && tty.isatty(fh.fd)
    if (!fifo && !terminal) return await readStream(fh.createReadStream({autoClose: false}), max, () => tooLarge())
  } finally {
    await fh.close()
  }
  if (terminal) return readTerminal(file, max, () => tooLarge())
  // (a FIFO put at the name since it was looked at)
  return readFifo(file, max, () => tooLarge())
}

/**
 * A terminal (`/dev/tty`), read as stdin is from one: lines until end of input (Ctrl-D). Its
 * reads go through libuv's tty handle, not node's pool, so an interrupt ends the wait for a
 * line (read as a file, its non-blocking open made the first read fail with EAGAIN: "unknown
 * input file").
 */
async function readTerminal(file: string, max: number, over: () => ExpError): Promise<Buffer> {
  const stream = new tty.ReadStream(fs.openSync(file, O_RDONLY | O_NONBLOCK))
  try {
    return await readStream(stream, max, over)
  } finally {
    stream.destroy()
  }
}

/**
 * A FIFO, read as `cat` reads one: its open waits for a writer, and its reads for what the
 * writer writes until it closes. Both waits are made so that SIGINT or SIGTERM ends them: an
 * open or read of a FIFO in a thread of node's pool cannot be ended (an interrupted exp printed
 * that it was interrupted and stayed, its exit waiting for that thread). The open's wait is
 * ended by opening the FIFO's other end, which an interrupt does; the reads go through libuv's
 * pipe (epoll), not the pool.
 */
async function readFifo(file: string, max: number, over: () => ExpError): Promise<Buffer> {
  const release = onInterrupt(() => {
    try {
      fs.closeSync(fs.openSync(file, O_WRONLY | O_NONBLOCK))
    } catch {
      // (no reader waits any more, or the name is gone: nothing to end)
    }
  })
  let fd: number
  try {
    fd = await new Promise<number>((resolve, reject) => fs.open(file, O_RDONLY, (e, n) => (e ? reject(e) : resolve(n))))
  } finally {
    release()
  }
  const pipe = new net.Socket({fd, readable: true, writable: false})
  try {
    return await readStream(pipe, max, over)
  } finally {
    pipe.destroy()
  }
}

async function readStream(stream: AsyncIterable<unknown> & {destroy?: () => void}, max: number, over: () => ExpError): Promise<Buffer> {
  const chunks: Buffer[] = []
  let n = 0
  for await (const c of stream) {
    const b = c as Buffer
    n += b.length
    if (n > max) {
      stream.destroy?.()
      throw over()
    }
    chunks.push(b)
  }
  return Buffer.concat(chunks, n)
}
