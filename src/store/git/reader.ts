import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import {CorruptObjectError} from '../../errors/index.js'
import {hashObject, ObjectTooLarge, type ObjectType} from './objects.js'
import {CatFileBatch, CatFileDied} from './native.js'
import {readPacked} from './pack-read.js'

/** Reads git objects by id. Two adapters: isomorphic-git (in process) and native `git cat-file --batch`. */
export interface ObjectReader {
  /** one object; larger than `max` bytes it is refused (ObjectTooLarge, which the cat-file adapter never holds) */
  read(oid: string, max?: number): Promise<{type: ObjectType; data: Buffer}>
  /**
   * many objects at once (pipelined where the adapter can); failures come back as Errors; `keep`
   * may copy each one where the caller wants it; an object larger than `max` bytes comes back as
   * ObjectTooLarge (the cat-file adapters never hold its bytes)
   */
  readMany(oids: readonly string[], keep?: (data: Buffer) => Buffer, max?: number): Promise<(Buffer | Error)[]>
  /** objects this process has just written (an append's trees and commits, after they are on disk): `read` may answer them from memory */
  remember?(objects: readonly WrittenObject[]): void
  /** whether `read` answers this object from what `remember` was given (no request to git) */
  remembers?(oid: string): boolean
  close(): Promise<void>
}

/**
 * the largest object, and the most bytes in all, kept of what this process wrote: the trees and
 * commits of the last 256 commits an append keeps (NEAR_WRITTEN, read back by a near read in
 * lane-read.ts) are ~10 MB on a lane of 100,000 records (four trees a commit, the largest ~10 KB)
 */
const RECENT_OBJECT_MAX = 64 * 1024
const RECENT_BYTES = 16 * 1024 * 1024

/**
 * how many packed objects a native reader reads in process before it starts cat-file for them:
 * a cold read of one large lane reads its tip and walks 16 first parents to tell whether the
 * lane is small (lane-read.ts, fewCommits), 17 reads; with 16 here, the last of them started a
 * cat-file of its own (~30 ms before the lane's git log and tree listing could start)
 */
export const PACKED_IN_PROCESS = 24

/** An object as it was written: its id, type and bytes. */
export interface WrittenObject {
  oid: string
  type: ObjectType
  data: Buffer
}

/** The last objects written (up to 4 MiB; none larger than 64 KiB), by id, oldest first. */
export class RecentObjects {
  private readonly byId = new Map<string, {type: ObjectType; data: Buffer}>()
  // ids in the order they came, the kept ones from `head` on (a queue: a Map is not walked
  // from its oldest entry after many deletes, each walk passing the deleted ones)
  private order: string[] = []
  private head = 0
  private bytes = 0

  add(oid: string, type: ObjectType, data: Buffer): void {
    if (data.length > RECENT_OBJECT_MAX || this.byId.has(oid)) return
    this.byId.set(oid, {type, data})
    this.order.push(oid)
    this.bytes += data.length
    while (this.bytes > RECENT_BYTES) {
      const old = this.order[this.head++]!
      this.bytes -= this.byId.get(old)!.data.length
      this.byId.delete(old)
    }
    if (this.head > 4096 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head)
      this.head = 0
    }
  }

  get(oid: string): {type: ObjectType; data: Buffer} | undefined {
    return this.byId.get(oid)
  }
}

export class IsoReader implements ObjectReader {
  /** one shared isomorphic-git cache per process (TOOLCHAIN.md: without it packed reads are ~900x slower) */
  static readonly cache: object = {}
  constructor(private readonly gitdir: string) {}

  async read(oid: string, max?: number): Promise<{type: ObjectType; data: Buffer}> {
    let o
    try {
      const {default: git} = await import('isomorphic-git')
      o = await git.readObject({fs, gitdir: this.gitdir, oid, format: 'content', cache: IsoReader.cache})
    } catch (e) {
      throw new CorruptObjectError('object', `${oid}: ${(e as Error).message}`, {oid})
    }
    // (isomorphic-git reads an object whole: the limit applies after the read)
    const data = limited(oid, Buffer.from(o.object as Uint8Array), max)
    if (data instanceof Error) throw data
    return {type: o.type as ObjectType, data}
  }

  async readMany(oids: readonly string[], _keep?: (data: Buffer) => Buffer, max?: number): Promise<(Buffer | Error)[]> {
    // (each object is its own buffer here already: nothing to gain from copying; isomorphic-git
    // reads an object whole, so `max` is applied after the read)
    const out: (Buffer | Error)[] = []
    for (const oid of oids) out.push(await this.read(oid, max).then(o => o.data, (e: Error) => e))
    return out
  }

  async close(): Promise<void> {}
}

function limited(oid: string, data: Buffer, max: number | undefined): Buffer | Error {
  return max !== undefined && data.length > max ? new ObjectTooLarge(oid, data.length, max) : data
}

/** at most this many objects are tried loose, in process, before asking cat-file */
const SMALL_READ = 64

/**
 * Read a loose object in process; undefined when it is not loose (packed or missing), or when
 * it inflates to more than `most` bytes (the caller asks cat-file, which streams it).
 */
export function readLoose(gitdir: string, oid: string, most?: number): {type: ObjectType; data: Buffer} | undefined {
  let raw: Buffer
  try {
    const file = fs.readFileSync(path.join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2)))
    raw = most === undefined ? zlib.inflateSync(file) : zlib.inflateSync(file, {maxOutputLength: most})
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ERR_BUFFER_TOO_LARGE') return undefined
    throw new CorruptObjectError('object', `${oid}: ${(e as Error).message}`, {oid})
  }
  const nul = raw.indexOf(0)
  const [type, size] = raw.toString('latin1', 0, nul).split(' ')
  const data = raw.subarray(nul + 1)
  if (Number(size) !== data.length || hashObject(type as ObjectType, data) !== oid) throw new CorruptObjectError('object', `${oid}: loose object does not match its id`, {oid})
  return {type: type as ObjectType, data}
}

/**
 * Native adapter: loose objects are read in process (no child for small repositories), and
 * packed ones stored whole until cat-file is started; everything else through one long-lived
 * `git cat-file --batch`.
 */
export class NativeReader implements ObjectReader {
  private batch: CatFileBatch | undefined
  // what remember() was given, oldest first (an object's id is the hash of its type and bytes:
  // these are the bytes git has under that id); a process that appends reads its new commits
  // and trees back at once (lane-read.ts, nearLaneCommits), and the loose files cost a read, an
  // inflate and a hash each (exp evolve -n 40: ~1 s)
  private readonly recent = new RecentObjects()
  /** packed objects read in process so far (PACKED_IN_PROCESS) */
  private packedReads = 0
  constructor(private readonly gitdir: string) {}

  remember(objects: readonly WrittenObject[]): void {
    // (copied out of the pool a small Buffer is cut from: a slice kept would keep its 8 KiB slab)
    for (const {oid, type, data} of objects) this.recent.add(oid, type, Buffer.from(new Uint8Array(data).buffer))
  }

  remembers(oid: string): boolean {
    return this.recent.get(oid) !== undefined
  }

  async read(oid: string, max?: number): Promise<{type: ObjectType; data: Buffer}> {
    const known = this.recent.get(oid)
    if (known) {
      const over = limited(oid, known.data, max)
      if (over instanceof Error) throw over
      return known
    }
    const loose = this.loose(oid, max)
    if (loose instanceof Error) throw loose
    if (loose) return loose
    // the first few objects a pack holds whole are read in process (pack-read.ts): a command that
    // reads one packed object (a lane's tip, before a warm read) starts no process. Not more: a
    // read there (an index searched by a read of each step) costs more than cat-file's answer
    // once it runs, and a walk of a packed history reads thousands
    if ((!this.batch || this.batch.ended) && this.packedReads < PACKED_IN_PROCESS) {
      this.packedReads++
      const packed = readPacked(this.gitdir, oid, max)
      if (packed) return packed
    }
    try {
      return await this.cat().read(oid, max)
    } catch (e) {
      // (cat-file died on another object before answering this one: once more, of a new one)
      if (e instanceof CatFileDied) return this.cat().read(oid, max)
      throw e
    }
  }

  /** The cat-file of this reader; a new one when the last ended (it dies on a damaged object). */
  private cat(): CatFileBatch {
    if (!this.batch || this.batch.ended) this.batch = new CatFileBatch(this.gitdir)
    return this.batch
  }

  /**
   * Bulk reads skip the in-process loose attempt: cat-file reads loose and packed alike, in C.
   * A few objects (a lookup during an append) are tried loose first, so a small repository
   * never needs the child process.
   */
  async readMany(oids: readonly string[], keep?: (data: Buffer) => Buffer, max?: number): Promise<(Buffer | Error)[]> {
    const out: (Buffer | Error | undefined)[] = new Array(oids.length)
    const rest: number[] = []
    oids.forEach((oid, i) => {
      if (oids.length <= SMALL_READ && fs.existsSync(path.join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2)))) {
        try {
          const loose = this.loose(oid, max)
          out[i] = loose instanceof Error ? loose : loose?.data
        } catch (e) {
          out[i] = e as Error
        }
      }
      if (out[i] === undefined) rest.push(i)
    })
    // those a cat-file that died never answered are asked again of a new one, as long as
    // each death answers at least one (the object it died on)
    let ask = rest
    while (ask.length) {
      const got = await this.cat().readBatch(ask.map(i => oids[i]!), keep, max)
      const again: number[] = []
      ask.forEach((i, k) => (got[k] instanceof CatFileDied ? again.push(i) : (out[i] = got[k])))
      if (again.length === ask.length) {
        for (const i of again) out[i] = got[0] as Error
        break
      }
      ask = again
    }
    return out as (Buffer | Error)[]
  }

  /**
   * A loose object read in process, or ObjectTooLarge; undefined when it is not loose or
   * inflates to more than a header's worth over `max` (left to cat-file, which skips it unread).
   */
  private loose(oid: string, max: number | undefined): {type: ObjectType; data: Buffer} | Error | undefined {
    const o = readLoose(this.gitdir, oid, max === undefined ? undefined : max + 64)
    if (!o) return undefined
    const data = limited(oid, o.data, max)
    return data instanceof Error ? data : o
  }

  async close(): Promise<void> {
    await this.batch?.close()
    this.batch = undefined
  }
}
