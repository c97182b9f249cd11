import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {CorruptObjectError} from '../../errors/index.js'
import {ObjectTooLarge, type ObjectType} from './objects.js'
import {gitEnv} from '../../git/env.js'

interface Pending {
  oid: string
  /** objects larger than this are skipped (ObjectTooLarge) */
  readonly max?: number
  resolve: (v: {type: ObjectType; data: Buffer}) => void
  reject: (e: Error) => void
}

interface Batch {
  out: (Buffer | Error)[]
  left: number
  keep: ((data: Buffer) => Buffer) | undefined
  /** objects larger than this are skipped (ObjectTooLarge) */
  max: number | undefined
  done: (out: (Buffer | Error)[]) => void
}

/** The place of one object of a readBatch in the queue of requests. */
class BatchSlot implements Pending {
  constructor(
    readonly oid: string,
    private readonly batch: Batch,
    private readonly i: number,
  ) {}

  get max(): number | undefined {
    return this.batch.max
  }

  resolve(o: {data: Buffer}): void {
    this.settle(this.batch.keep ? this.batch.keep(o.data) : o.data)
  }

  reject(e: Error): void {
    this.settle(e)
  }

  private settle(v: Buffer | Error): void {
    const b = this.batch
    b.out[this.i] = v
    if (--b.left === 0) b.done(b.out)
  }
}

/** A request a cat-file that died never answered: not this object's fault, asked again of a new one. */
export class CatFileDied extends Error {
  constructor(readonly cause: Error) {
    super(`git cat-file ended before answering (${cause.message})`)
  }
}

/**
 * One long-lived `git cat-file --batch`: requests are pipelined, answers parsed from the
 * stream in order. Used for bulk reads where isomorphic-git is one to two orders slower.
 */
export class CatFileBatch {
  private child: ChildProcessWithoutNullStreams
  private queue: Pending[] = []
  private head = 0
  private buf: Buffer = Buffer.alloc(0)
  private want: {type: ObjectType; size: number} | undefined
  /** an object larger than one read, gathered here (its size and newline) while it arrives; `buf` is it then */
  private big: Buffer | undefined
  private bigHave = 0
  /** bytes of the stream still to pass over (an object too large for its request, and its newline) */
  private skip = 0
  private dead: Error | undefined

  constructor(gitDir: string) {
    this.child = spawn('git', ['--git-dir', gitDir, 'cat-file', '--batch'], {stdio: ['pipe', 'pipe', 'pipe'], env: gitEnv()})
    this.child.stdout.on('data', (d: Buffer) => this.onData(d))
    this.child.stderr.on('data', () => undefined)
    this.child.on('error', e => this.fail(e))
    this.child.on('close', () => this.fail(new Error('git cat-file exited')))
    this.child.stdin.on('error', e => this.fail(e))
  }

  /** One object; larger than `max` bytes it is passed over unread and refused (ObjectTooLarge). */
  read(oid: string, max?: number): Promise<{type: ObjectType; data: Buffer}> {
    if (this.dead) return Promise.reject(new CatFileDied(this.dead))
    if (this.head === this.queue.length) this.hold(true)
    return new Promise((resolve, reject) => {
      this.queue.push({oid, max, resolve, reject})
      this.child.stdin.write(`${oid}\n`)
    })
  }

  /**
   * Many objects, asked for in one write; failures come back as Errors, in order. `keep`, when
   * given, copies each object out of the pipe's buffer as it arrives (into memory the caller
   * reuses), so those buffers die young instead of being held by the answers.
   */
  readBatch(oids: readonly string[], keep?: (data: Buffer) => Buffer, max?: number): Promise<(Buffer | Error)[]> {
    const out = new Array<Buffer | Error>(oids.length)
    if (!oids.length) return Promise.resolve(out)
    if (this.dead) return Promise.resolve(out.fill(new CatFileDied(this.dead)))
    if (this.head === this.queue.length) this.hold(true)
    return new Promise(resolve => {
      // one small object a request (not an object and two closures: a full read has ~1,000 in flight)
      const batch: Batch = {out, left: oids.length, keep, max, done: resolve}
      for (let i = 0; i < oids.length; i++) this.queue.push(new BatchSlot(oids[i]!, batch, i))
      this.child.stdin.write(Buffer.from(`${oids.join('\n')}\n`, 'latin1'))
    })
  }

  /** Keep the event loop alive only while answers are awaited: an idle reader never holds a process open. */
  private hold(on: boolean): void {
    const handles = [this.child, this.child.stdout, this.child.stdin, this.child.stderr] as unknown as {ref(): void; unref(): void}[]
    for (const h of handles) {
      if (on) h.ref()
      else h.unref()
    }
  }

  /**
   * Answers are parsed where they arrive: an object inside one read of the pipe is a view of
   * it. Only what a read cuts in two is joined (the bytes kept from the read before and the
   * head of this one), not the whole read: joining every read copied every byte once more
   * and made a 64 KiB buffer per read for the GC.
   */
  private onData(d: Buffer): void {
    let at = 0
    if (this.buf.length) {
      // the rest of the header or object the last read cut: how many bytes of this read complete it
      const have = this.big ? this.bigHave : this.buf.length
      const need = this.want ? this.want.size + 1 - have : d.indexOf(10) + 1
      if (need <= 0 || need > d.length) {
        // not complete yet: a header cut twice (joined: a few bytes), or an object larger than
        // a read, gathered into one buffer of its size (joining each read to all before it
        // copied a 100 MB artifact ~1,500 times)
        if (!this.want) this.buf = Buffer.concat([this.buf, d])
        else {
          if (!this.big) {
            this.big = Buffer.allocUnsafe(this.want.size + 1)
            this.bigHave = this.buf.copy(this.big)
            this.buf = this.big
          }
          this.bigHave += d.copy(this.big, this.bigHave)
        }
        return
      }
      let joined: Buffer
      if (this.big) {
        d.copy(this.big, this.bigHave, 0, need)
        joined = this.big
        this.big = undefined
      } else joined = Buffer.concat([this.buf, d.subarray(0, need)])
      this.buf = EMPTY
      const used = this.take(joined, 0)
      // (what is joined is one header or one object: all of it is used)
      if (used !== joined.length) return this.fail(new CorruptObjectError('object', 'git cat-file answered in a form this reader cannot parse'))
      at = need
    }
    at = this.take(d, at)
    if (at < d.length) this.buf = d.subarray(at)
  }

  /** Parse the whole headers and objects in `d` from `at`; returns where the unparsed rest begins. */
  private take(d: Buffer, at: number): number {
    for (;;) {
      if (this.skip) {
        const n = Math.min(this.skip, d.length - at)
        at += n
        this.skip -= n
        if (this.skip) return at
      }
      if (!this.want) {
        const nl = d.indexOf(10, at)
        if (nl < 0) return at
        const header = answerHeader(d, at, nl)
        at = nl + 1
        if (header instanceof Error) {
          this.next()?.reject(header)
          if (this.head === this.queue.length) this.hold(false)
          continue
        }
        this.want = header
        const max = this.queue[this.head]?.max
        if (max !== undefined && this.want.size > max) {
          // passed over as it streams by, never joined into one buffer
          const p = this.next()!
          p.reject(new ObjectTooLarge(p.oid, this.want.size, max))
          this.skip = this.want.size + 1
          this.want = undefined
          if (this.head === this.queue.length) this.hold(false)
          continue
        }
      }
      if (d.length - at < this.want.size + 1) return at
      // a view, not a copy: the read it lies in is never written again (a new one is made for what follows)
      const data = d.subarray(at, at + this.want.size)
      const type = this.want.type
      at += this.want.size + 1
      this.want = undefined
      this.next()?.resolve({type, data})
      if (this.head === this.queue.length) this.hold(false)
    }
  }

  private next(): Pending | undefined {
    const p = this.queue[this.head]
    this.queue[this.head++] = undefined as unknown as Pending
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head)
      this.head = 0
    }
    return p
  }

  private fail(e: Error): void {
    if (this.dead) return
    this.dead = e
    // cat-file dies on an object it cannot read (a damaged pack entry): the request it was
    // answering gets the error, with its object named; those after it were never answered
    // and may be asked again of a new cat-file (CatFileDied, NativeReader)
    const first = this.queue[this.head]
    if (first) first.reject(new CorruptObjectError('object', `${first.oid} could not be read (${e.message}): it is missing or damaged`, {oid: first.oid}))
    for (let i = this.head + 1; i < this.queue.length; i++) this.queue[i]?.reject(new CatFileDied(e))
    this.queue = []
    this.head = 0
  }

  /** Whether this cat-file has ended (a reader then starts another). */
  get ended(): boolean {
    return this.dead !== undefined
  }

  async close(): Promise<void> {
    if (this.dead) return
    this.hold(true)
    await new Promise<void>(resolve => {
      this.child.once('close', () => resolve())
      this.child.stdin.end()
    })
  }
}

const EMPTY = Buffer.alloc(0)
const TYPES: readonly ObjectType[] = ['blob', 'tree', 'commit', 'tag']

/**
 * The header of one answer of `git cat-file --batch` in `d[at, nl)` (`<oid> SP <type> SP <size>`,
 * or `<oid> SP missing|ambiguous`): the object's type and size, or the error of an object it
 * does not have. (The pipe reader and the spool reader, cat-file-spool.ts, read answers alike.)
 */
export function answerHeader(d: Buffer, at: number, nl: number): {type: ObjectType; size: number} | CorruptObjectError {
  const sp = d.indexOf(32, at)
  const sp2 = sp >= 0 && sp < nl ? d.indexOf(32, sp + 1) : -1
  if (sp2 < 0 || sp2 > nl) {
    const oid = d.toString('latin1', at, sp >= 0 && sp < nl ? sp : nl)
    return new CorruptObjectError('object', `${oid} is missing from the object database`, {oid})
  }
  return {type: objectType(d, sp + 1, sp2), size: answerSize(d, sp2 + 1, nl)}
}

/**
 * The size in `d[from, to)`: read from its digits (a full read takes 100,000 answers: no string
 * made of each), or as Number() reads the text when it is not up to 15 plain digits.
 */
function answerSize(d: Buffer, from: number, to: number): number {
  if (to > from && to - from <= 15) {
    let n = 0
    let i = from
    for (; i < to; i++) {
      const c = d[i]! - 0x30
      if (c < 0 || c > 9) break
      n = n * 10 + c
    }
    if (i === to) return n
  }
  return Number(d.toString('latin1', from, to))
}

/** The type named by `d[from, to)`, as one of the constant strings when it is a known one (compared as bytes). */
function objectType(d: Buffer, from: number, to: number): ObjectType {
  for (const t of TYPES) {
    if (t.length !== to - from) continue
    let k = 0
    while (k < t.length && d[from + k] === t.charCodeAt(k)) k++
    if (k === t.length) return t
  }
  return d.toString('latin1', from, to) as ObjectType
}
