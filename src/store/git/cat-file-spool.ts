import {execFileSync, spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {randomBytes} from 'node:crypto'
import {CorruptObjectError} from '../../errors/index.js'
import {ObjectTooLarge} from './objects.js'
import {answerHeader} from './native.js'
import {gitEnv} from '../../git/env.js'

/**
 * `git cat-file --batch` whose answers go to a spool file instead of a pipe, for a full read
 * of a large lane (every record file, asked for in bulk).
 *
 * Why a file: through a pipe, cat-file writes each object in three small writes and the
 * reader wakes for most of them. For 100,000 records (165 MB) that was ~22,000 reads and
 * as many event-loop wake-ups here, and cat-file stalled on the full pipe in between:
 * 3.0–3.2 s and ~1.7 s of this process's CPU to fetch what `git cat-file --batch > file`
 * writes in 1.4 s. Written to a file, cat-file never waits on this process, and the answers
 * are read back in reads of up to 1 MiB (2.2 s and 0.5 s of CPU here, measured with the same requests).
 *
 * The file is created in `dir` (under `.git/exp`), opened twice (cat-file writes through one
 * descriptor, this process reads through the other) and unlinked at once: nothing is left
 * behind, whatever happens to either process (a kill in the moment before the unlink leaves
 * `spool.<hex>.<pid>.tmp`, which `exp gc` removes once that pid is gone). Requests are written to cat-file's stdin as
 * the caller makes them, so the spool grows only as far as the caller asks ahead of what it
 * reads. Not available on Windows (an open file cannot be unlinked there): `open` returns
 * undefined and the caller uses the pipe.
 */
export class CatFileSpool {
  /** how many spools this process opened (tests and diagnostics: which path a read took) */
  static opened = 0

  private readonly queue: Batch[] = []
  /** the batch being answered and how many of its objects are in */
  private cur = 0
  private pos = 0
  private buf = Buffer.allocUnsafe(READ)
  private have = 0
  /** cat-file has ended and its stderr is all in */
  private exited = false
  private failed: Error | undefined
  /** whether pump() runs (set and cleared synchronously: a request made as the last answer settles starts a new one) */
  private pumping = false
  private pumped: Promise<void> = Promise.resolve()
  private stderr = ''
  private stdinError: Error | undefined
  /** endRequests() was called */
  private ended = false

  private constructor(
    private readonly child: ChildProcess,
    private readonly fd: number,
    /** `--batch-command --buffer`: requests are `contents <oid>` lines and a `flush` */
    private readonly commands: boolean,
  ) {
    child.on('close', () => {
      this.exited = true
    })
    child.on('error', e => this.fail(e))
    child.stderr?.on('data', d => (this.stderr += d))
    // (a request written after cat-file died: EPIPE. Its exit is what is reported, with what it said)
    child.stdin?.on('error', e => {
      this.stdinError ??= e
      child.kill()
    })
  }

  /** `commands`: whether to use `--batch-command --buffer` (default: when this git has it) */
  static open(gitDir: string, dir: string, commands = batchCommands()): CatFileSpool | undefined {
    if (process.platform === 'win32') return undefined
    let file: string
    let w: number
    let r: number
    try {
      fs.mkdirSync(dir, {recursive: true})
      file = path.join(dir, `spool.${randomBytes(6).toString('hex')}.${process.pid}.tmp`)
      w = fs.openSync(file, 'wx', 0o600)
    } catch {
      return undefined
    }
    try {
      r = fs.openSync(file, 'r')
    } catch {
      fs.closeSync(w)
      fs.rmSync(file, {force: true})
      return undefined
    }
    let child: ChildProcess
    try {
      child = spawn('git', ['--git-dir', gitDir, 'cat-file', ...(commands ? ['--batch-command', '--buffer'] : ['--batch'])], {stdio: ['pipe', w, 'pipe'], env: gitEnv()})
    } finally {
      // cat-file has its own descriptor of the file now; the name is not needed by anyone
      fs.closeSync(w)
      fs.rmSync(file, {force: true})
    }
    CatFileSpool.opened++
    return new CatFileSpool(child, r, commands)
  }

  /**
   * The objects in order; failures (missing, cat-file died) come back as Errors. `keep` copies
   * each where the caller wants it. An object larger than `max` is ObjectTooLarge, and its bytes
   * are never read.
   */
  readMany(oids: readonly string[], keep?: (data: Buffer) => Buffer, max?: number): Promise<(Buffer | Error)[]> {
    const out = new Array<Buffer | Error>(oids.length)
    if (!oids.length) return Promise.resolve(out)
    if (this.failed) return Promise.resolve(out.fill(this.failed))
    return new Promise(resolve => {
      this.queue.push({oids, out, keep, max, done: resolve})
      this.child.stdin!.write(this.commands ? `contents ${oids.join('\ncontents ')}\nflush\n` : `${oids.join('\n')}\n`)
      if (!this.pumping) {
        this.pumping = true
        this.pumped = this.pump()
      }
    })
  }

  /** Read answers from the spool while any are awaited. */
  private async pump(): Promise<void> {
    try {
      while (this.queue.length && !this.failed) {
        if (this.have === this.buf.length) this.grow()
        const got = read(this.fd, this.buf, this.have, this.pos)
        if (got > 0) {
          this.pos += got
          this.have += got
          this.parse()
          // a short read: cat-file is barely ahead; let it write a good deal before the next read
          if (got < SHORT && !this.exited) await new Promise(resolve => setTimeout(resolve, 1))
          continue
        }
        // nothing new: cat-file is still at work, or it has ended (one more read: it may have written before exiting)
        if (this.exited) {
          const last = read(this.fd, this.buf, this.have, this.pos)
          if (last > 0) {
            this.pos += last
            this.have += last
            this.parse()
            continue
          }
          const said = this.stderr.trim().split('\n').pop() || this.stdinError?.message
          this.fail(new Error(`git cat-file exited before answering${said ? `: ${said}` : ''}`))
          break
        }
        await new Promise(resolve => setTimeout(resolve, 1))
      }
    } catch (e) {
      this.fail(e as Error)
    } finally {
      this.pumping = false
    }
  }

  /** Hand out every whole answer in the buffer; keep the cut one at its start. */
  private parse(): void {
    const b = this.buf
    let at = 0
    let need = 0
    while (this.queue.length) {
      const nl = b.indexOf(10, at)
      if (nl < 0 || nl >= this.have) break
      // a header, then <data> LF when the object is there
      const header = answerHeader(b, at, nl)
      const batch = this.queue[0]!
      if (header instanceof Error) {
        this.settle(batch, header)
        at = nl + 1
        continue
      }
      const size = header.size
      if (!Number.isSafeInteger(size) || size < 0) {
        this.fail(new CorruptObjectError('object', 'git cat-file answered in a form this reader cannot parse'))
        return
      }
      if (batch.max !== undefined && size > batch.max) {
        // too large for the request: its bytes are passed over in the file, not read
        this.settle(batch, new ObjectTooLarge(batch.oids[this.cur]!, size, batch.max))
        const after = nl + 1 + size + 1
        if (after <= this.have) at = after
        else {
          this.pos += after - this.have
          at = this.have
        }
        continue
      }
      if (this.have - (nl + 1) < size + 1) {
        // a cut answer: room for all of it (header, object and newline) once it is moved to the start
        need = nl + 1 - at + size + 1
        break
      }
      const view = b.subarray(nl + 1, nl + 1 + size)
      this.settle(batch, batch.keep ? batch.keep(view) : Buffer.from(view))
      at = nl + 1 + size + 1
    }
    if (at > 0) {
      b.copy(b, 0, at, this.have)
      this.have -= at
    }
    if (need > b.length) this.grow(need)
  }

  private settle(batch: Batch, v: Buffer | Error): void {
    batch.out[this.cur++] = v
    if (this.cur === batch.out.length) {
      this.queue.shift()
      this.cur = 0
      batch.done(batch.out)
    }
  }

  private grow(least = 0): void {
    const b = Buffer.allocUnsafe(Math.max(least, this.buf.length * 2))
    this.buf.copy(b, 0, 0, this.have)
    this.buf = b
  }

  private fail(e: Error): void {
    if (this.failed) return
    this.failed = e
    for (const batch of this.queue.splice(0)) {
      for (let i = this.cur; i < batch.out.length; i++) batch.out[i] = e
      this.cur = 0
      batch.done(batch.out)
    }
  }

  /**
   * No more requests will come: cat-file ends as soon as it has answered those made, while
   * the caller is still reading them (close() then finds it gone instead of waiting ~20 ms for
   * it to end).
   */
  endRequests(): void {
    if (this.ended) return
    this.ended = true
    this.child.stdin?.end()
  }

  async close(): Promise<void> {
    if (!this.exited) {
      await new Promise<void>(resolve => {
        this.child.once('close', () => resolve())
        this.child.stdin!.end()
        // (a close while answers are still coming: they are not wanted)
        if (this.queue.length || this.failed) this.child.kill()
      })
    }
    this.fail(new Error('the spool reader is closed'))
    // (a read in flight ends before its descriptor is closed)
    await this.pumped
    // closed on libuv's thread pool, not waited for: the last descriptor of the unlinked spool
    // frees its pages (a 100,000-record read: ~170 MB, ~40 ms) beside what this thread does next
    fs.close(this.fd, () => undefined)
  }
}

interface Batch {
  oids: readonly string[]
  out: (Buffer | Error)[]
  keep: ((data: Buffer) => Buffer) | undefined
  max: number | undefined
  done: (out: (Buffer | Error)[]) => void
}

let commandsKnown: boolean | undefined
let probing: ChildProcess | undefined

/**
 * Whether this git has `cat-file --batch-command` (2.36): with `--buffer`, cat-file then
 * writes its answers in large writes and flushes once a request. `--batch` writes each object
 * in three writes of its own (100,000 records: 300,000 writes; ~0.1 s less of git's CPU
 * buffered). Asked once a process: by probeBatchCommands while a read lists its tree, or here.
 */
function batchCommands(): boolean {
  if (commandsKnown === undefined) {
    try {
      commandsKnown = commandsIn(execFileSync('git', ['version'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']}))
    } catch {
      commandsKnown = false
    }
  }
  return commandsKnown
}

/**
 * Ask git's version in the background, for a spool opened later (a full read of a large lane
 * asks while the lane's tree is listed: `git version` waited for then was ~15 ms between the
 * listing and the first fetch).
 */
export function probeBatchCommands(): void {
  if (commandsKnown !== undefined || probing) return
  let out = ''
  try {
    probing = spawn('git', ['version'], {stdio: ['ignore', 'pipe', 'ignore']})
  } catch {
    return
  }
  probing.stdout!.on('data', d => (out += d))
  probing.on('error', () => (probing = undefined))
  probing.on('close', code => {
    probing = undefined
    if (code === 0) commandsKnown ??= commandsIn(out)
  })
  probing.unref()
}

function commandsIn(version: string): boolean {
  const m = /^git version (\d+)\.(\d+)/.exec(version)
  return !!m && (Number(m[1]) > 2 || (Number(m[1]) === 2 && Number(m[2]) >= 36))
}

const READ = 1 << 20
/** reads shorter than this wait a little before the next (cat-file writes ~100 KB a millisecond) */
const SHORT = 128 * 1024

/**
 * One read of the spool. Synchronous: the bytes were just written and are in the page cache (a
 * copy, ~50 µs for 64 KiB); through the thread pool each read cost the main thread more than that.
 */
function read(fd: number, buf: Buffer, at: number, pos: number): number {
  return fs.readSync(fd, buf, at, buf.length - at, pos)
}
