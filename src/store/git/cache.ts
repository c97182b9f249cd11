import fs from 'node:fs'
import path from 'node:path'
import os from 'node:os'
import zlib from 'node:zlib'
import {isKind, kindConstant, type Kind} from '../../records/index.js'
import type {LedgerEntry} from '../ledger.js'
import type {ReadProblem} from '../port.js'
import {alive} from '../../git/lock.js'
import {verifyCachedBytes} from './record-bytes.js'
import {slotKey} from '../first-ids.js'
import {NotRegularFile, whatItIs, createRegularSync, openAppendSync, openRegularSync, readRegularSync, replaceFileSync} from '../../regular-file.js'

/**
 * The derived projection cache under .git/exp/cache-v4/: per lane ref, an index file (one
 * TSV line per record: commit, id, kind, digest, lamport, offset, length, prefix length,
 * created_at, cites, facts) and one data file per record kind (the record bytes of that kind, in lane
 * order), plus state.json naming the lane tips they were built from. Append-only per lane,
 * so an incremental update only reads the commits new since the cached tip. Keeping each
 * kind's bytes together lets a query for one kind (all decisions, say) read them in a few
 * large reads instead of one read per record. Deleting the folder changes no answer.
 *
 * The cache is verified, never trusted: state.json keeps a CRC of each index and the sizes
 * of the data files, so an index that was cut, edited or does not match its state is
 * refused whole (the lane is then read from history again); and every record body read
 * from a data file is checked against its digest and its index line (record-bytes.ts).
 */
// 2: the facts column (records/facts.ts); 3: one data file per kind; 4: the prefix column
// and the index CRC (verified reads). Older caches are removed and rebuilt.
export const CACHE_FORMAT = 4

function lstatOrNone(file: string): fs.Stats | undefined {
  return fs.lstatSync(file, {throwIfNoEntry: false})
}

/** The cache does not agree with itself; the lane is read from history instead. */
export class CacheMismatch extends Error {}

/** A write of a lane's cache files failed (a full disk; a FIFO, a link or a folder at a name it writes): the lane is read without the cache. */
export class CacheWriteError extends Error {}

/** `fn`, a failure of the file system under it (an errno, or a name that is no regular file) a CacheWriteError; anything else (a bug) as it is */
function writing<T>(fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof NotRegularFile || typeof (e as NodeJS.ErrnoException).code === 'string') throw new CacheWriteError((e as Error).message, {cause: e})
    throw e
  }
}

export interface LaneState {
  tip: string
  gen: number
  count: number
  idxBytes: number
  /** bytes of each kind's data file */
  dat: Partial<Record<Kind, number>>
  lastLamport: number
  problems: ReadProblem[]
  /** CRC-32 of the index file's first idxBytes bytes */
  crc: number
}

export interface CacheState {
  format: number
  lanes: Record<string, LaneState>
}

export interface CachedEntry extends LedgerEntry {
  off: number
  len: number
  /** bytes of the record's digest-covered prefix (record-bytes.ts) */
  pre: number
  created: string
  file: string
  /** the bytes were checked against history by this process when it wrote them (no second check) */
  fresh?: boolean
}

/** A record to add to the cache: what its entry needs, its bytes (checked) and the length of their digest-covered prefix. */
export interface CacheAdd {
  id: string
  kind: Kind
  digest: string
  lamport: number
  commit: string
  cites: readonly string[]
  facts: string | undefined
  bytes: Buffer
  pre: number
  /** the record's created_at */
  created: string
}

const HOST = os.hostname()
/** the most of state.json read (a lane's state is ~300 bytes and its problems): a larger one is no state exp wrote, and the cache is rebuilt */
const STATE_MAX = 256 * 1024 * 1024
/** the most of the write lock read (one line: pid and host) */
const LOCK_MAX = 4096
/** reads of one data file are merged when the bytes between two wanted records are at most this */
const READ_GAP = 16 * 1024
/** and a merged read stays at most this large */
const READ_MAX = 8 * 1024 * 1024
const MAX_OPEN = 256
/** a single record read takes this many bytes around it (LedgerCache.read) */
const READ_AHEAD = 64 * 1024
/** single-read blocks kept, one per data file (LedgerCache.read) */
const BLOCKS_MAX = 64
/** a transient read buffer grows to at most this (a larger batch gets a buffer of its own) */
const SLAB_MAX = 64 * 1024 * 1024
/**
 * the index is read in slices of this many bytes. Each becomes one string: V8 makes a string
 * of up to ~128 KB in its young space, a larger one in its large-object space, ~10x slower
 * per byte here (21 MB of index as 512 KiB strings: ~70 ms; as 64 KiB strings: ~7 ms)
 */
const IDX_CHUNK = 64 * 1024

/**
 * The indexes of entries in the order to read them: by data file, then offset. A lane's
 * entries come in lane order, which in each data file is ascending (records appended) or
 * descending (records a full read wrote newest first): runs are taken or reversed as they
 * are, and only a file whose entries are in neither order is sorted.
 */
function readOrder(es: readonly CachedEntry[]): number[] {
  // (a loader's single record: no map, no sort)
  if (es.length < 2) return es.length ? [0] : []
  const byFile = new Map<string, number[]>()
  for (let i = 0; i < es.length; i++) {
    const f = es[i]!.file
    let list = byFile.get(f)
    if (!list) byFile.set(f, (list = []))
    list.push(i)
  }
  const out: number[] = []
  for (const f of [...byFile.keys()].sort()) {
    const list = byFile.get(f)!
    let up = true
    let down = true
    for (let k = 1; k < list.length && (up || down); k++) {
      const d = es[list[k]!]!.off - es[list[k - 1]!]!.off
      if (d < 0) up = false
      else if (d > 0) down = false
    }
    if (!up && down) list.reverse()
    else if (!up) list.sort((a, b) => es[a]!.off - es[b]!.off)
    for (const i of list) out.push(i)
  }
  return out
}

/** CRC-32 of a file's first `bytes` bytes (or of what it has, when shorter) */
function crcOf(fd: number, bytes: number): number {
  const buf = Buffer.allocUnsafe(Math.min(IDX_CHUNK, Math.max(bytes, 1)))
  let crc = 0
  for (let done = 0; done < bytes; ) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, bytes - done), done)
    if (n <= 0) break
    crc = zlib.crc32(buf.subarray(0, n), crc)
    done += n
  }
  return crc
}

/** A decimal number of at most 15 digits in text[from, to), or -1. */
function digits(text: string, from: number, to: number): number {
  // (up to 16: a lamport clock may be any safe integer, 2^53 - 1 included)
  if (to <= from || to - from > 16) return -1
  let n = 0
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) - 48
    if (c < 0 || c > 9) return -1
    n = n * 10 + c
  }
  return Number.isSafeInteger(n) ? n : -1
}

export class LedgerCache {
  readonly dir: string
  private fds = new Map<string, number>()
  private lockFile: string
  /** the read buffer of transient reads (readMany) */
  private slab = Buffer.alloc(0)

  constructor(commonDir: string) {
    this.dir = path.join(commonDir, 'exp', `cache-v${CACHE_FORMAT}`)
    this.lockFile = path.join(this.dir, 'write.lock')
  }

  loadState(): CacheState {
    try {
      const s = JSON.parse(readRegularSync(path.join(this.dir, 'state.json'), STATE_MAX)) as CacheState
      if (s.format === CACHE_FORMAT && s.lanes && typeof s.lanes === 'object') {
        // a lane whose generation is not a number names no files of this cache: read again
        // (an edited `gen` of `1/../../x` made reads and appends use files outside .git/exp)
        for (const [ref, st] of Object.entries(s.lanes)) if (!st || typeof st !== 'object' || !Number.isSafeInteger(st.gen) || st.gen < 0) delete s.lanes[ref]
        return s
      }
    } catch {
      // no cache or unreadable: rebuild
    }
    return {format: CACHE_FORMAT, lanes: {}}
  }

  /** Remove caches of other formats (a version of exp that wrote them is gone or older). */
  removeOldFormats(): void {
    const parent = path.dirname(this.dir)
    let names: string[]
    try {
      names = fs.readdirSync(parent)
    } catch {
      return
    }
    for (const n of names) if (/^cache-v\d+$/.test(n) && n !== path.basename(this.dir)) fs.rmSync(path.join(parent, n), {recursive: true, force: true})
  }

  saveState(s: CacheState): void {
    replaceFileSync(path.join(this.dir, 'state.json'), JSON.stringify(s))
  }

  /**
   * `.git/exp` and the cache folder in it, made when missing. Throws CacheWriteError when
   * `.git/exp` is not a folder (a file, a link: nothing is written through it). Anything else
   * at the cache folder's own name (a link to a folder elsewhere, which every cache write went
   * through, a file) is exp's to replace: removed, never followed, and the folder made.
   */
  private ensureDir(): void {
    const top = lstatOrNone(path.dirname(this.dir))
    if (top && !top.isDirectory()) throw new CacheWriteError(`${path.dirname(this.dir)} is ${top.isFile() ? 'a file' : whatItIs(top)}, not a folder`)
    if (!top) fs.mkdirSync(path.dirname(this.dir), {recursive: true})
    const dir = lstatOrNone(this.dir)
    if (dir?.isDirectory()) return
    if (dir) fs.rmSync(this.dir, {force: true})
    try {
      fs.mkdirSync(this.dir)
    } catch (e) {
      // (made by another process meanwhile)
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !lstatOrNone(this.dir)?.isDirectory()) throw e
    }
  }

  /**
   * Take the cache write lock, or return false when another process holds it or the folder
   * cannot be made (a read-only repository): then nothing is persisted. Throws CacheWriteError
   * when `.git/exp` is not a folder, which the caller says.
   */
  tryLock(): boolean {
    try {
      this.ensureDir()
      const fd = fs.openSync(this.lockFile, 'wx')
      fs.writeSync(fd, `exp pid=${process.pid} host=${HOST}\n`)
      fs.closeSync(fd)
      this.listed = undefined
      return true
    } catch (e) {
      if (e instanceof CacheWriteError) throw e
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false
      try {
        // (a lock that is not a file, a FIFO or a folder or a link, is no writer's: removed)
        if (!fs.lstatSync(this.lockFile).isFile()) {
          fs.rmSync(this.lockFile, {recursive: true, force: true})
          return this.tryLock()
        }
        const text = readRegularSync(this.lockFile, LOCK_MAX)
        const m = /pid=(\d+) host=(\S+)/.exec(text)
        const st = fs.statSync(this.lockFile)
        const dead = m && m[2] === HOST && !alive(Number(m[1]))
        if (dead || Date.now() - st.mtimeMs > 120_000) {
          fs.unlinkSync(this.lockFile)
          return this.tryLock()
        }
      } catch {
        // raced with its owner: leave it
      }
      return false
    }
  }

  unlock(): void {
    this.listed = undefined
    fs.rmSync(this.lockFile, {force: true})
  }

  private base(ref: string, gen: number): string {
    if (!Number.isSafeInteger(gen) || gen < 0) throw new CacheMismatch(`the generation ${JSON.stringify(gen)} of ${ref} is not a number`)
    return path.join(this.dir, `${ref.replace(/\//g, '~')}.${gen}`)
  }

  /**
   * Read a lane's cached entries, up to the lengths recorded in state, checking the index
   * against its state (CRC, line count, sizes, offsets): throws CacheMismatch when they differ.
   */
  readEntries(ref: string, st: LaneState, lane: string, isPrivate: boolean): CachedEntry[] {
    const base = this.base(ref, st.gen)
    const fail = (why: string): never => {
      throw new CacheMismatch(`${path.basename(base)}.idx: ${why}`)
    }
    if (!Number.isSafeInteger(st.idxBytes) || !Number.isSafeInteger(st.count) || st.idxBytes < 0 || st.count < 0 || typeof st.dat !== 'object' || st.dat === null) fail('its state is malformed')
    const sizes = new Map<string, number>()
    for (const [kind, bytes] of Object.entries(st.dat)) {
      if (!isKind(kind) || !Number.isSafeInteger(bytes)) fail(`its state names a data file ${kind}`)
      const size = fs.statSync(`${base}.${kind}.dat`, {throwIfNoEntry: false})?.size
      if (size === undefined || size < bytes!) fail(`${kind}.dat is shorter than its state`)
      sizes.set(kind, bytes!)
    }
    let fd: number
    try {
      fd = openRegularSync(`${base}.idx`)
    } catch (e) {
      return fail(e instanceof NotRegularFile ? 'the index is not a regular file' : 'the index file is missing')
    }
    const out: CachedEntry[] = new Array(st.count)
    const files = new Map<string, string>()
    let i = 0
    let crc = 0
    try {
      // read in slices into one buffer: the index of 100,000 records is ~21 MB, which as
      // one fresh buffer cost a new process ~5,000 page faults; each slice becomes one string
      // the entries' fields are views of
      let chunk = Buffer.allocUnsafe(Math.min(IDX_CHUNK, Math.max(st.idxBytes, 1)))
      // bytes parsed (whole lines), and bytes read (and in the CRC)
      let done = 0
      let read = 0
      while (done < st.idxBytes) {
        const want = Math.min(chunk.length, st.idxBytes - done)
        const n = fs.readSync(fd, chunk, 0, want, done)
        // (a short read of a file is its end)
        if (n < want) fail('the index is shorter than its state')
        // a slice starts at a line: the partial line at the end of the last one is read again
        // (not joined to the next slice: that copied every slice once more)
        if (done + n > read) {
          crc = zlib.crc32(chunk.subarray(read - done, n), crc)
          read = done + n
        }
        const text = chunk.toString('latin1', 0, n)
        let pos = 0
        // fields by indexOf rather than split(): this loop is most of what a new process pays to read a lane
        for (;;) {
          const nl = text.indexOf('\n', pos)
          if (nl < 0) break
          if (i >= st.count) fail(`it holds more lines than the ${st.count} its state counts`)
          const t0 = text.indexOf('\t', pos)
          const t1 = text.indexOf('\t', t0 + 1)
          const t2 = text.indexOf('\t', t1 + 1)
          const t3 = text.indexOf('\t', t2 + 1)
          const t4 = text.indexOf('\t', t3 + 1)
          const t5 = text.indexOf('\t', t4 + 1)
          const t6 = text.indexOf('\t', t5 + 1)
          const t7 = text.indexOf('\t', t6 + 1)
          const t8 = text.indexOf('\t', t7 + 1)
          const t9 = text.indexOf('\t', t8 + 1)
          if (t0 < 0 || t9 < 0 || t9 > nl) fail(`line ${i + 1} is truncated`)
          const kind = kindConstant(text.slice(t1 + 1, t2))!
          const limit = kind && sizes.get(kind)
          const off = digits(text, t4 + 1, t5)
          const len = digits(text, t5 + 1, t6)
          const pre = digits(text, t6 + 1, t7)
          const lamport = digits(text, t3 + 1, t4)
          // offsets and lengths must lie within the data the state vouches for
          if (limit === undefined || !(off >= 0 && len > 0 && off + len <= limit && pre > 0 && pre < len && lamport >= 1)) fail(`line ${i + 1} points outside its data file`)
          // (positions an entry keeps as one number: an id of 27 characters, a commit and what
          // follows up to created_at as short as exp writes them)
          if (t1 - t0 !== 28 || t0 - pos > 0xff || t2 - pos > 0xff || t7 - pos > 0x7fff) fail(`line ${i + 1} is not a line exp writes`)
          let file = files.get(kind)
          if (file === undefined) files.set(kind, (file = `${base}.${kind}.dat`))
          out[i++] = new IndexEntry(text, pos, (t0 - pos) | ((t2 - pos) << 8) | ((t7 - pos) << 16), kind, lamport, off, len, pre, lane, ref, isPrivate, file)
          pos = nl + 1
        }
        if (pos === 0) {
          // no whole line in the slice: the last line, cut, or a line longer than the slice
          if (done + n >= st.idxBytes) fail(`line ${i + 1} is truncated`)
          chunk = Buffer.allocUnsafe(chunk.length * 2)
        }
        done += pos
      }
    } catch (e) {
      // an edit is the likelier story of a line that does not parse: say so when the CRC says so
      if (e instanceof CacheMismatch && crcOf(fd, st.idxBytes) !== st.crc) fail('the index does not match the CRC in its state (it was edited)')
      throw e
    } finally {
      fs.closeSync(fd)
    }
    if (crc !== st.crc) fail('the index does not match the CRC in its state (it was edited)')
    if (i !== st.count) fail(`it holds ${i} lines, not the ${st.count} its state counts`)
    return out
  }

  /**
   * Start adding records to a lane's cache files (truncating any tail a crashed writer left
   * past the state): data first, as records arrive, in any order; the index last, in lane
   * order (LaneWriter.finish).
   */
  writer(ref: string, st: LaneState | undefined, lane: string, isPrivate: boolean): LaneWriter {
    fs.mkdirSync(this.dir, {recursive: true})
    // (a writer may cut a crashed writer's tail and write there again: no block of before)
    this.blocks.clear()
    const gen = st?.gen ?? Date.now()
    return new LaneWriter(this.base(ref, gen), gen, ref, st, lane, isPrivate)
  }

  /**
   * The cache's files as the folder held them when this lock was taken, by lane (the file
   * name up to its generation): listed once, not once per lane — a cold read of 3,000 lanes
   * listed the folder 3,000 times (8 s of a 19 s read). Files written since are of the
   * generation being written, which dropOthers keeps anyway.
   */
  private listed: Map<string, {name: string; gen: number}[]> | undefined

  private filesOf(prefix: string): {name: string; gen: number}[] {
    if (!this.listed) {
      this.listed = new Map()
      let names: string[] = []
      try {
        names = fs.readdirSync(this.dir)
      } catch {
        // no folder: no files
      }
      for (const name of names) {
        // <lane>.<gen>.idx or <lane>.<gen>.<kind>.dat, exactly (lane `a` must not take lane `a.1`'s files)
        const m = /^(.+\.)(\d{10,})\.(idx|[a-z]+\.dat)$/.exec(name)
        if (!m) continue
        const list = this.listed.get(m[1]!) ?? []
        list.push({name, gen: Number(m[2])})
        this.listed.set(m[1]!, list)
      }
    }
    return this.listed.get(prefix) ?? []
  }

  /** Remove the files of a lane's other cache generations (an older cache, a damaged one). */
  dropOthers(ref: string, gen: number): void {
    const prefix = `${ref.replace(/\//g, '~')}.`
    const files = this.filesOf(prefix)
    for (const f of files) {
      if (f.gen === gen) continue
      this.closeFile(path.join(this.dir, f.name))
      // (recursive: a folder put at a name goes too; a link is removed, not followed)
      fs.rmSync(path.join(this.dir, f.name), {force: true, recursive: true})
    }
    this.listed!.set(
      prefix,
      files.filter(f => f.gen === gen),
    )
  }

  /** Remove files of lanes that are gone or rebuilt. */
  drop(ref: string, st: LaneState): void {
    const base = this.base(ref, st.gen)
    for (const f of [`${base}.idx`, ...Object.keys(st.dat).map(kind => `${base}.${kind}.dat`)]) {
      this.closeFile(f)
      fs.rmSync(f, {force: true, recursive: true})
    }
  }

  private fd(file: string): number {
    let fd = this.fds.get(file)
    if (fd === undefined) {
      if (this.fds.size >= MAX_OPEN) this.close()
      fd = openRegularSync(file)
      this.fds.set(file, fd)
    }
    return fd
  }

  private closeFile(file: string): void {
    this.blocks.delete(file)
    const fd = this.fds.get(file)
    if (fd === undefined) return
    fs.closeSync(fd)
    this.fds.delete(file)
  }

  /**
   * The last block a single read took in each data file, with the records around the one
   * asked for: a loader that asks for records one at a time (the trust checks load each
   * evaluation and decision in ledger order) asks for neighbours next, which lie together in
   * a kind's data file. One block per file, as the ledger's order goes from lane to lane: a
   * single block for all files was replaced at almost every read (18,000 reads of 64 KiB,
   * 1.2 GB, to load 36,000 records of five lanes). Bytes from a block are checked like any
   * others (readMany); a block is never written, so views of it stay valid.
   */
  private blocks = new Map<string, {off: number; buf: Buffer}>()

  private read(e: CachedEntry): Buffer {
    const b = this.blocks.get(e.file)
    if (b && e.off >= b.off && e.off + e.len <= b.off + b.buf.length) return b.buf.subarray(e.off - b.off, e.off - b.off + e.len)
    if (e.len >= READ_AHEAD / 2) {
      const buf = Buffer.allocUnsafe(e.len)
      if (fs.readSync(this.fd(e.file), buf, 0, e.len, e.off) !== e.len) return buf.subarray(0, 0)
      return buf
    }
    // a block from the record on when the reads of this file go forwards, up to it when they go
    // backwards (a lane's records are in either order in the file), around it at first
    const off = !b ? Math.max(0, e.off - Math.floor((READ_AHEAD - e.len) / 2)) : e.off >= b.off ? e.off : Math.max(0, e.off + e.len - READ_AHEAD)
    const buf = Buffer.allocUnsafe(READ_AHEAD)
    const got = buf.subarray(0, fs.readSync(this.fd(e.file), buf, 0, READ_AHEAD, off))
    this.blocks.delete(e.file)
    // (the oldest block goes first: at most BLOCKS_MAX of them, 4 MiB)
    if (this.blocks.size >= BLOCKS_MAX) this.blocks.delete(this.blocks.keys().next().value!)
    this.blocks.set(e.file, {off, buf: got})
    if (e.off + e.len > off + got.length) return got.subarray(0, 0)
    return got.subarray(e.off - off, e.off - off + e.len)
  }

  /**
   * The bytes of many entries, in their order, each checked against its digest and its index
   * line: a mismatch comes back as a CacheMismatch instead of the bytes. Entries of one data
   * file that lie close together are read in one go (a kind's records are contiguous in its file).
   * With `transient`, the buffers are views of one read buffer the next transient call
   * reuses: use them before then.
   */
  readMany(es: readonly CachedEntry[], transient = false): (Buffer | CacheMismatch)[] {
    const out = new Array<Buffer | CacheMismatch>(es.length)
    const order = readOrder(es)
    let i = 0
    // transient: the reads go into one buffer kept for the next call (views of it are valid
    // until then), not a fresh one each: fresh memory is a page fault per 4 KiB, ~10,000 of
    // them in a streamed `--json` of 100,000 records
    let used = 0
    while (i < order.length) {
      const first = es[order[i]!]!
      let end = first.off + first.len
      let j = i + 1
      for (; j < order.length; j++) {
        const e = es[order[j]!]!
        if (e.file !== first.file || e.off - end > READ_GAP || e.off + e.len - first.off > READ_MAX) break
        end = Math.max(end, e.off + e.len)
      }
      let buf: Buffer
      try {
        if (j === i + 1 && !transient) buf = this.read(first)
        else {
          const size = end - first.off
          if (transient) {
            if (this.slab.length < used + size) {
              // the views handed out so far keep the old buffer alive; the next call reuses this one
              this.slab = Buffer.allocUnsafe(Math.max(used + size, Math.min(this.slab.length * 2, SLAB_MAX)))
              used = 0
            }
            buf = this.slab.subarray(used, used + size)
            used += size
          } else buf = Buffer.allocUnsafe(size)
          buf = buf.subarray(0, fs.readSync(this.fd(first.file), buf, 0, buf.length, first.off))
        }
      } catch (e) {
        buf = Buffer.alloc(0)
        void e
      }
      for (let k = i; k < j; k++) {
        const e = es[order[k]!]!
        const bytes = buf.subarray(e.off - first.off, e.off - first.off + e.len)
        const why = bytes.length !== e.len ? 'the data file is shorter than the index says' : e.fresh ? undefined : verifyCachedBytes(bytes, e)
        out[order[k]!] = why === undefined ? bytes : new CacheMismatch(`${e.id} in ${path.basename(e.file)}: ${why}`)
      }
      i = j
    }
    return out
  }

  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd)
    this.fds.clear()
    this.blocks.clear()
  }
}

/**
 * An entry read from a cache index line. The fields the ledger sorts, selects and reads by
 * (numbers, and strings all entries share) are its own; id, commit, digest, created, cites
 * and facts are taken from the line when asked for. Five strings and an array fewer per
 * entry: a new process reading 100,000 entries spent ~120 ms (and 30 MB) on strings most
 * reads never look at, and each one kept was one more object for every young-generation
 * collection to copy (the id as a field: ~13 ms more of them in a warm `exp ledger --json`
 * of 100,000, where each id is read once or twice). For the same reason the positions in
 * the line are one number: 120 bytes an entry, not 144 (2.4 MB fewer of 100,000 to copy,
 * and to fault in: a fresh 4 KiB page costs ~11 µs on the machines the benchmark runs on).
 */
class IndexEntry implements CachedEntry {
  readonly private: boolean
  constructor(
    private readonly t: string,
    /** where the line starts */
    private readonly p: number,
    /** from the line's start: its first tab (bits 0-7), the tab before the digest (8-15), the tab before created_at (16-30) */
    private readonly o: number,
    readonly kind: Kind,
    readonly lamport: number,
    readonly off: number,
    readonly len: number,
    readonly pre: number,
    readonly lane: string,
    readonly ref: string,
    isPrivate: boolean,
    readonly file: string,
  ) {
    this.private = isPrivate
  }

  /** the tab before created_at */
  private get t7(): number {
    return this.p + (this.o >>> 16)
  }

  get id(): string {
    const t0 = this.p + (this.o & 0xff)
    // (the id is 27 characters: readEntries checked)
    return this.t.slice(t0 + 1, t0 + 28)
  }

  get commit(): string {
    return this.t.slice(this.p, this.p + (this.o & 0xff))
  }

  idKey(): number {
    const t0 = this.p + (this.o & 0xff)
    return slotKey(this.t, t0 + 1, t0 + 28)
  }

  get digest(): string {
    const t2 = this.p + ((this.o >>> 8) & 0xff)
    return this.t.slice(t2 + 1, this.t.indexOf('\t', t2 + 1))
  }

  get created(): string {
    const t7 = this.t7
    return this.t.slice(t7 + 1, this.t.indexOf('\t', t7 + 1))
  }

  get cites(): readonly string[] {
    const t8 = this.t.indexOf('\t', this.t7 + 1)
    const t9 = this.t.indexOf('\t', t8 + 1)
    return t9 > t8 + 1 ? this.t.slice(t8 + 1, t9).split(' ') : NO_CITES
  }

  get facts(): string | undefined {
    const t9 = this.t.indexOf('\t', this.t.indexOf('\t', this.t7 + 1) + 1)
    const nl = this.t.indexOf('\n', t9 + 1)
    return nl > t9 + 1 ? this.t.slice(t9 + 1, nl) : undefined
  }
}
const NO_CITES: readonly string[] = []

/** Records being added to one lane's cache files: see LedgerCache.writer. */
export class LaneWriter {
  private readonly dat: Partial<Record<Kind, number>>
  private started = new Set<Kind>()
  /** one file name string per kind, shared by the entries (100,000 copies of it added up) */
  private files = new Map<Kind, string>()
  /** the data files open for appending, by kind */
  private fds = new Map<Kind, number>()

  constructor(private readonly base: string, private readonly gen: number, private readonly ref: string, private readonly st: LaneState | undefined, private readonly lane: string, private readonly isPrivate: boolean) {
    this.dat = {...st?.dat}
  }

  /** Write the bytes of records to the data files; the entries that point at them (in the order given). */
  addData(add: readonly CacheAdd[]): CachedEntry[] {
    return writing(() => this.writeData(add))
  }

  private writeData(add: readonly CacheAdd[]): CachedEntry[] {
    const byKind = new Map<Kind, Buffer[]>()
    const entries: CachedEntry[] = new Array(add.length)
    add.forEach((e, i) => {
      const {bytes, pre, created} = e
      let file = this.files.get(e.kind)
      if (file === undefined) this.files.set(e.kind, (file = `${this.base}.${e.kind}.dat`))
      let chunks = byKind.get(e.kind)
      if (!chunks) {
        byKind.set(e.kind, (chunks = []))
        if (!this.started.has(e.kind)) {
          // a kind seen for the first time (its file made anew, whatever was at its name), or a
          // tail a crashed writer left past the state (cut off): opened for the whole read,
          // never through a link, a FIFO or a folder at the name (regular-file.ts)
          const have = this.dat[e.kind]
          this.fds.set(e.kind, have === undefined ? createRegularSync(file) : openAppendSync(file, have))
          this.started.add(e.kind)
        }
      }
      const off = this.dat[e.kind] ?? 0
      entries[i] = {id: e.id, kind: e.kind, digest: e.digest, lane: this.lane, ref: this.ref, private: this.isPrivate, lamport: e.lamport, commit: e.commit, cites: e.cites, facts: e.facts, off, len: bytes.length, pre, created, file, fresh: true}
      chunks.push(bytes)
      this.dat[e.kind] = off + bytes.length
    })
    for (const [kind, chunks] of byKind) {
      // written from where the bytes are (no joined copy of the chunk), through a descriptor
      // kept open for the whole read (a full read adds ~400 chunks of each kind)
      let fd = this.fds.get(kind)
      if (fd === undefined) this.fds.set(kind, (fd = openAppendSync(`${this.base}.${kind}.dat`)))
      for (let i = 0; i < chunks.length; i += 1024) writeAll(fd, chunks.slice(i, i + 1024))
    }
    return entries
  }

  /** Close the data files (finish does). */
  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd)
    this.fds.clear()
  }

  /**
   * A read that fails: close the data files, and remove those of a new generation (nothing
   * points into them; a lane that failed every read left one more generation each time, 2 GB
   * each for a lane of 2 GB). An incremental read's files are cut back by the next one.
   */
  abort(): void {
    this.close()
    if (this.st) return
    for (const kind of Object.keys(this.dat)) fs.rmSync(`${this.base}.${kind}.dat`, {force: true})
    fs.rmSync(`${this.base}.idx`, {force: true})
  }

  /** Write the index lines of `entries` (the new ones, in lane order) and return the lane's new state. */
  finish(entries: readonly CachedEntry[], tip: string, problems: ReadProblem[]): LaneState {
    return writing(() => this.writeIndex(entries, tip, problems))
  }

  private writeIndex(entries: readonly CachedEntry[], tip: string, problems: ReadProblem[]): LaneState {
    this.close()
    const idxFile = `${this.base}.idx`
    const idxBytes = this.st?.idxBytes ?? 0
    let crc = this.st?.crc ?? 0
    let size = idxBytes
    // each line written into a slab as it is made and the slab appended when full: ~3x less
    // CPU than joining a slice's lines into one string and converting that (V8 flattens the
    // string first), ~0.15 s at 100,000 lines at the end of a cold read, when nothing else runs
    let slab = Buffer.allocUnsafe(IDX_SLAB)
    let at = 0
    const fd = this.st ? openAppendSync(idxFile, idxBytes) : createRegularSync(idxFile)
    try {
      const flush = () => {
        const idx = slab.subarray(0, at)
        writeAll(fd, [idx])
        crc = zlib.crc32(idx, crc)
        size += at
        at = 0
      }
      for (const e of entries) {
        const line = `${e.commit}\t${e.id}\t${e.kind}\t${e.digest}\t${e.lamport}\t${e.off}\t${e.len}\t${e.pre}\t${e.created}\t${e.cites.join(' ')}\t${e.facts ?? ''}\n`
        if (at + line.length > slab.length) {
          flush()
          if (line.length > slab.length) slab = Buffer.allocUnsafe(line.length)
        }
        at += slab.write(line, at, 'latin1')
      }
      if (at) flush()
    } finally {
      fs.closeSync(fd)
    }
    const last = entries.length ? entries[entries.length - 1]!.lamport : this.st?.lastLamport ?? 0
    return {tip, gen: this.gen, count: (this.st?.count ?? 0) + entries.length, idxBytes: size, dat: this.dat, lastLamport: last, problems, crc}
  }
}

/** the index lines are written in slabs of this size */
const IDX_SLAB = 1 << 20

/** the most one writev is given: Linux writes at most 2 GiB a call, and Node's count of the bytes written overflowed past it */
const WRITEV_MAX = 256 * 1024 * 1024

/** writev until every buffer is written (a write may be short). */
function writeAll(fd: number, bufs: Buffer[]): void {
  let rest = bufs
  while (rest.length) {
    // (as many buffers as fit in WRITEV_MAX, at least one, cut to it)
    let take = 0
    let bytes = 0
    while (take < rest.length && (take === 0 || bytes + rest[take]!.length <= WRITEV_MAX)) bytes += rest[take++]!.length
    const batch = take === 1 && rest[0]!.length > WRITEV_MAX ? [rest[0]!.subarray(0, WRITEV_MAX)] : rest.slice(0, take)
    let n = fs.writevSync(fd, batch)
    while (rest.length && n >= rest[0]!.length) {
      n -= rest[0]!.length
      rest = rest.slice(1)
    }
    if (rest.length && n > 0) rest = [rest[0]!.subarray(n), ...rest.slice(1)]
  }
}
