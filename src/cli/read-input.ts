import {open} from 'node:fs/promises'
import {ExpError} from '../errors/index.js'

/**
 * Read a file a command was given (or stdin, `-`), at most `max` bytes of it. A regular file
 * over the limit is refused before it is read; a stream that is not a regular file (stdin,
 * `/dev/zero`, `/dev/urandom`, a pipe that never ends) is read only up to the limit, so an
 * endless input is an error, not a command that hangs while its memory grows. (A FIFO with
 * no writer waits for one, as `cat` does.)
 */
export async function readBounded(file: string, o: {shown: string; max: number; why: string; hint: string}): Promise<Buffer> {
  const {shown, max} = o
  const tooLarge = (size?: number) => new ExpError('E_TOO_LARGE', `${shown} ${size === undefined ? 'is longer than' : `is ${size} bytes, more than`} the ${max} bytes exp reads of it (${o.why})`, {data: {file: shown, limit: max, ...(size === undefined ? {} : {bytes: size})}, hint: o.hint})
  if (file === '-') return readStream(process.stdin, max, () => tooLarge())
  const fh = await open(file, 'r')
  try {
    const st = await fh.stat()
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${file}'`), {code: 'EISDIR', path: file})
    if (st.isFile() && st.size > max) throw tooLarge(st.size)
    return await readStream(fh.createReadStream({autoClose: false}), max, () => tooLarge())
  } finally {
    await fh.close()
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
