import path from 'node:path'
import v8 from 'node:v8'
import {kindOfId, recordIdAtPath, recordPath} from '../../records/index.js'
import {problem} from '../problems.js'
import {parseLaneRef} from '../lanes.js'
import type {LedgerEntry} from '../ledger.js'
import type {ReadProblem} from '../port.js'
import type {LedgerCache, LaneState, CacheAdd, CachedEntry} from './cache.js'
import {laneCommitChunksNative, laneCommitsIso, nearLaneCommits, NEAR_COMMITS, type LaneCommit} from './log.js'
import type {ObjectReader} from './reader.js'
import {OBJECT_MAX, parseCommit} from './objects.js'
import {lookupPath} from './tree.js'
import {eachLaneCommit, eachTreeEntry, type LeanCommit} from './tree-list.js'
import type {Located} from './verify.js'
import {Slabs, fetchRecords, checkInProcess, checkOne, type SlabHolder} from './lane-check.js'
import {CatFileSpool, probeBatchCommands} from './cat-file-spool.js'
import {CheckPool} from './check-pool.js'
import {IdTable} from './id-table.js'
import type {Checked} from './check-one.js'
import type {Finding} from './record-bytes.js'

/** An entry read from history, its bytes kept when there is no cache to point into. */
export interface MemEntry extends LedgerEntry {
  bytes: Buffer
}

export interface LaneReadContext {
  commonDir: string
  reader: ObjectReader
  native: boolean
  cache: LedgerCache
  /** the largest record file a read takes (larger ones are skipped and named: store.ts, readCeiling) */
  maxRead: number
}

export interface LaneReadResult {
  entries: LedgerEntry[]
  problems: ReadProblem[]
  state?: LaneState
  /** whether the commit `watch` (a tip seen before) was among the commits read */
  sawWatch: boolean
}

/** How full reads of lanes went in this process, for tests and diagnostics: read plain (readPlainLane), or by the general reader. */
export const fullReads = {plain: 0, general: 0}

const CHUNK = 256
/**
 * Chunks whose blobs are asked of cat-file before the one being checked is done: with one,
 * cat-file ran dry while a chunk was checked (it had nothing more to answer) and then the
 * check waited on cat-file; a few keep it busy the whole time (slabs bound the memory).
 */
const FETCH_AHEAD = 4
/**
 * The same for a full read through a spool file (readPlainLane): sixteen. With four, cat-file
 * was idle ~0.2 s of a 100,000-record read, waiting for requests while the threads that check
 * and cache took its CPU, and the check thread then waited for bytes; sixteen chunks (~7 MB
 * of slabs) cut that to ~0.1 s (interleaved medians 2.94 s against 3.08 s; 64 was no better).
 */
const SPOOL_AHEAD = 16
function memEntry(a: CacheAdd, ref: string): MemEntry {
  const info = parseLaneRef(ref)!
  return {id: a.id, kind: a.kind, digest: a.digest, lane: info.lane, ref, private: info.private, lamport: a.lamport, commit: a.commit, cites: a.cites, ...(a.facts ? {facts: a.facts} : {}), bytes: a.bytes}
}

/**
 * Read one lane from `st` (its cached state: only the commits since its tip, with their
 * diffs) or in full, writing the records to the cache as they are checked. Returns undefined
 * when the cached tip is not an ancestor of the new tip (the lane was rewritten): read it in
 * full then. Throws when the lane's history cannot be walked (missing objects).
 * A full read with the git binary takes a plain lane's records from its tip's tree
 * (readPlainLane); any other lane is read as an incremental read is, each commit with its diff.
 */
export async function readLane(ctx: LaneReadContext, ref: string, tip: string, st: LaneState | undefined, persist: boolean, start: LedgerEntry[] | undefined, watch: string | undefined): Promise<LaneReadResult | undefined> {
  // a lane of a few commits is read in process, through the shared cat-file: the two git
  // processes of a full read cost more than its records (3,000 lanes of one record each: 14.5 s
  // a cold read, most of it starting git twice a lane)
  const small = !st && ctx.native ? await fewCommits(ctx.reader, tip, SMALL_LANE) : undefined
  if (!st && ctx.native && !small) {
    const fast = await readPlainLane(ctx, ref, tip, persist, watch)
    if (fast) {
      fullReads.plain++
      return fast
    }
  }
  if (!st) fullReads.general++
  const info = parseLaneRef(ref)!
  const full = !st
  const added: LedgerEntry[] = []
  const found: ReadProblem[] = []
  let first = true
  let sawWatch = false
  const writer = persist ? ctx.cache.writer(ref, st, info.lane, info.private) : undefined
  // (a lane that is not plain is read with each commit's diff, oldest first: a record's bytes
  // are those its own commit added, and a later commit that modifies or deletes a record file
  // is a problem named at that commit, not new bytes for the old record)
  const chunks: AsyncGenerator<LaneCommit[]> = small ? listed(small) : incrementalChunks(ctx, tip, st?.tip)
  // a pipeline: git log runs ahead, and the blobs of the next FETCH_AHEAD chunks are
  // requested from cat-file as soon as git log has listed them, so both git processes work
  // while this one checks and caches the chunk before
  // (bytes kept in entries, without a cache, must not be in slabs that are used again)
  const slabs = writer ? new Slabs() : undefined
  const fetchNext = async () => {
    const n = await chunks.next()
    if (n.done) return undefined
    const holder = slabs?.holder()
    const fetched = fetchRecords(ctx.reader, n.value, holder?.keep, ctx.maxRead)
    fetched.catch(() => undefined) // awaited in its turn; not unhandled until then
    return {chunk: n.value, fetched, holder}
  }
  // a full read of a large lane allocates ~10x its size in short-lived objects, and V8's heap
  // grows by a factor it picks itself (~2-4x of what is live) before it compacts: held to
  // 1.5x while the read runs (100,000 records: peak RSS ~220 MB, 10 full collections; at 1.3x
  // ~205 MB but 15, each marking all the entries read so far)
  const tight = full ? tightHeap() : undefined
  try {
    // the chunks in flight, in order: each has its blobs asked for once git log has listed it
    const ahead: ReturnType<typeof fetchNext>[] = []
    let listed = true
    const refill = () => {
      while (listed && ahead.length < FETCH_AHEAD) {
        // one at a time: the generator must not be asked again before it has answered
        const prev = ahead[ahead.length - 1]
        const next = prev ? prev.then(p => (p ? fetchNext() : undefined)) : fetchNext()
        next.catch(() => undefined) // awaited in its turn; not unhandled until then
        void next.then(
          n => {
            if (!n) listed = false
          },
          () => undefined,
        )
        ahead.push(next)
      }
    }
    refill()
    for (;;) {
      const cur = await ahead.shift()!
      if (!cur) break
      const chunk = cur.chunk
      if (first && st && chunk[0]!.parents[0] !== st.tip) {
        writer?.abort()
        return undefined
      }
      first = false
      if (watch && !sawWatch) sawWatch = chunk.some(c => c.oid === watch)
      const fetched = await cur.fetched
      refill()
      // one turn of the event loop: the chunks listed meanwhile have their blobs requested
      await new Promise(resolve => setImmediate(resolve))
      const {add, problems: bad} = await checkInProcess(ref, chunk, fetched)
      for (const e of writer ? writer.addData(add) : add.map(a => memEntry(a, ref))) added.push(e)
      cur.holder?.release()
      for (const p of bad) found.push(p)
    }
    if (first && st) {
      writer?.abort()
      return undefined
    }
  } catch (e) {
    writer?.abort()
    throw e
  } finally {
    await chunks.return(undefined)
    tight?.()
  }
  const problems = [...(st?.problems ?? []), ...found]
  const entries = st ? [...(start ?? []), ...added] : added
  const state = writer?.finish(added as CachedEntry[], tip, problems)
  return {entries, problems, state, sawWatch}
}

/**
 * A full read of a plain lane: `git ls-tree -r` of the tip (the lane tree is cumulative:
 * every record file) and `git log` of the lane without diffs, newest first, each commit
 * taken apart where it arrives to its id and the record its trailers name (tree-list.ts,
 * eachLaneCommit: no message kept, no object per commit), the record files asked of
 * cat-file in that order. Each record file gets every check of its bytes and its trailers
 * (UTF-8, JSON, schema, canonical form, digest, id, path, lane, Exp-Record, Exp-Lamport).
 *
 * Only a lane that is what exp writes is read this way: every commit names a record of the
 * tree that no other commit names, none is a merge, every entry of the tree is a regular file,
 * a record at its own path, and is named, lamports grow along the lane (by their Exp-Lamport), no record
 * has artifacts. A record file that fails its checks is named and left out, as the general
 * reader does it. Anything else returns undefined and the lane is read by the general
 * reader below, which names what is wrong. (The checks that need each commit's diff are made by incremental reads
 * and `exp fsck`: a later commit that also rewrites an earlier record's file — a keyed
 * record's new bytes can pass every check of the bytes — is named by them, not by this read;
 * docs/trust.md.)
 */
async function readPlainLane(ctx: LaneReadContext, ref: string, tip: string, persist: boolean, watch: string | undefined): Promise<LaneReadResult | undefined> {
  return new PlainRead(ctx, ref, tip, persist).run(watch)
}

/** A chunk of record files in flight: asked of cat-file, and checked on the pool's thread when there is one. */
interface InFlight {
  from: number
  got: Promise<(Buffer | Error)[]>
  checked?: Promise<Checked[] | undefined>
  holder?: SlabHolder
}

/**
 * One plain read (readPlainLane), its steps as methods. (One async function held all of it
 * once: V8 compiled that function, ~250 lines of closures, three times a read as the paths
 * it had not yet taken were taken, ~180 ms of compiling on the threads that also check and
 * fetch. Methods are compiled one by one, each small.)
 */
class PlainRead {
  private readonly info: NonNullable<ReturnType<typeof parseLaneRef>>
  // the record files, by their index in the tree: blob ids and record ids only (the path is theirs by rule)
  private readonly blobs: string[] = []
  private readonly ids: string[] = []
  // id -> its index in the tree
  private readonly where = new IdTable(this.ids)
  // which tree files a commit has named (by their place in the listing)
  private named = new Uint8Array(0)
  // the commits as git log lists them (newest first), each with the index of the file it names
  private readonly oids: string[] = []
  private readonly files: number[] = []
  private readonly lamports: number[] = []
  private odd = false
  private listed = false
  private wake: (() => void) | undefined
  // commits listed before the tree is in: kept as they came, placed once it is
  private readonly early: LeanCommit[] = []
  private treeIn = false
  // the check thread of a large lane, started as soon as the listing shows the lane is large
  // (it loads its modules while the rest of the tree is listed)
  private pool: CheckPool | undefined
  private writer: ReturnType<LedgerCache['writer']> | undefined
  private slabs: Slabs | undefined
  private spool: CatFileSpool | undefined
  private reader: Pick<ObjectReader, 'readMany'>
  private readonly added: LedgerEntry[] = []
  // the problems of record files that fail their checks, a list a record, newest first
  private readonly bad: ReadProblem[][] = []
  // the chunks in flight, in order, and the next file to ask for
  private readonly ahead: InFlight[] = []
  private next = 0

  constructor(
    private readonly ctx: LaneReadContext,
    private readonly ref: string,
    private readonly tip: string,
    private readonly persist: boolean,
  ) {
    this.info = parseLaneRef(ref)!
    this.reader = ctx.reader
  }

  async run(watch: string | undefined): Promise<LaneReadResult | undefined> {
    // git log's output is taken in once the tree is: until then this thread is the one that
    // has work (the tree's listing holds up every fetch; the commits could only wait in `early`)
    let treeListed!: () => void
    const held = new Promise<void>(resolve => (treeListed = resolve))
    const log = eachLaneCommit(this.ctx.commonDir, this.tip, c => this.onCommit(c), held)
    log.then(
      () => ((this.listed = true), this.notify()),
      () => ((this.odd = true), (this.listed = true), this.notify()),
    )
    let plainTree: boolean
    try {
      // (every entry a regular file: a symbolic link or a submodule is named by the general reader)
      plainTree = await eachTreeEntry(this.ctx.commonDir, this.tip, (buf, oid, at, end) => this.onTreeEntry(buf, oid, at, end), true)
    } catch {
      plainTree = false
    }
    this.named = new Uint8Array(this.blobs.length)
    this.treeIn = true
    treeListed()
    for (const c of this.early.splice(0)) if (!this.odd && !this.place(c)) this.odd = true
    if (!plainTree) this.odd = true
    const tight = tightHeap()
    try {
      await this.open()
      for (;;) {
        this.ask()
        if (this.odd) break
        const cur = this.ahead.shift()
        if (!cur) {
          if (this.listed) break
          await new Promise<void>(resolve => (this.wake = resolve))
          continue
        }
        const data = await cur.got
        this.ask()
        const checked = await cur.checked
        if (cur.checked && !checked) this.odd = true
        if (!this.odd) await this.settle(cur, data, checked)
        cur.holder?.release()
      }
      // every file of the tree named by a commit
      if (!this.odd && this.files.length !== this.blobs.length) this.odd = true
      if (this.odd) {
        for (const {got} of this.ahead) await got.catch(() => undefined)
        await log.catch(() => undefined)
        this.writer?.abort()
        return undefined
      }
    } catch {
      await log.catch(() => undefined)
      this.writer?.abort()
      return undefined
    } finally {
      tight()
      await this.spool?.close()
      await this.pool?.close()
    }
    this.added.reverse()
    const found = this.bad.reverse().flat()
    const state = this.writer?.finish(this.added as CachedEntry[], this.tip, found)
    return {entries: this.added, problems: found, state, sawWatch: watch !== undefined && this.oids.includes(watch)}
  }

  private notify(): void {
    const w = this.wake
    this.wake = undefined
    w?.()
  }

  /** A commit git log listed. (Once the lane is known not to be plain, git log is stopped.) */
  private onCommit(c: LeanCommit): boolean {
    const ok = !this.odd && (this.treeIn ? this.place(c) : (this.early.push(c), true))
    if (!ok) this.odd = true
    this.notify()
    return ok
  }

  /** A file of the tip's tree: a record at its own path, <kind dir>/<2 hex of the id>/<id>.json (read from the bytes). */
  private onTreeEntry(buf: Buffer, oid: number, at: number, end: number): boolean {
    const id = recordIdAtPath(buf, at, end)
    if (id === undefined) return false
    this.blobs.push(buf.toString('latin1', oid, at - 1))
    this.ids.push(id)
    this.where.add(this.ids.length - 1)
    if (this.blobs.length === SPOOL_MIN) {
      if (this.persist) this.pool = CheckPool.open()
      // (the spool this lane is fetched through asks which cat-file it can start)
      probeBatchCommands()
    }
    return true
  }

  /** The file a commit names, placed after the files of the commits listed before it; false when the commit is not plain. */
  private place(c: LeanCommit): boolean {
    // Exp-Record is `kind/id`: the id's file, and the kind its id's prefix gives
    const slash = c.record?.indexOf('/') ?? -1
    const at = slash > 0 ? this.where.find(c.record!, slash + 1) : undefined
    if (c.odd || c.merge || at === undefined || this.named[at] || this.files.length >= this.blobs.length || !Number.isSafeInteger(c.lamport)) return false
    const kind = kindOfId(this.ids[at]!)!
    if (slash !== kind.length || !c.record!.startsWith(kind)) return false
    this.named[at] = 1 // a second commit naming it is not plain
    this.oids.push(c.oid)
    this.files.push(at)
    this.lamports.push(c.lamport!)
    return true
  }

  /**
   * The cache writer, and where the record files come from: a large lane's through a spool
   * file (cat-file-spool.ts), a small one's through the shared pipe; checked on a second
   * thread when there is a cache to write (the bytes are in shared slabs then).
   */
  private async open(): Promise<void> {
    if (this.odd) return
    this.writer = this.persist ? this.ctx.cache.writer(this.ref, undefined, this.info.lane, this.info.private) : undefined
    this.slabs = this.writer ? new Slabs() : undefined
    this.spool = this.blobs.length >= SPOOL_MIN ? CatFileSpool.open(this.ctx.commonDir, path.join(this.ctx.commonDir, 'exp')) : undefined
    this.reader = this.spool ?? this.ctx.reader
    if (this.pool && !(this.spool && this.slabs)) {
      await this.pool.close()
      this.pool = undefined
    }
  }

  /**
   * Ask cat-file for the blobs of the next chunks (SPOOL_AHEAD of them through a spool,
   * FETCH_AHEAD through the pipe) while one is checked, as soon as git log has listed their
   * commits; each checked on the pool's thread as soon as it is in.
   */
  private ask(): void {
    const {files, blobs, ids, lamports, ahead} = this
    const most = this.spool ? SPOOL_AHEAD : FETCH_AHEAD
    while (!this.odd && ahead.length < most && (this.next + CHUNK <= files.length || (this.listed && this.next < files.length))) {
      const holder = this.slabs?.holder()
      const from = this.next
      const got = this.reader.readMany(
        files.slice(from, from + CHUNK).map(i => blobs[i]!),
        holder?.keep,
        this.ctx.maxRead,
      )
      got.catch(() => undefined) // awaited in its turn; not unhandled until then
      // (a chunk with an unreadable blob is not plain)
      const thread = this.pool
      const lane = this.info.lane
      const checked = thread ? got.then(data => (data.every(b => b instanceof Buffer) ? thread.check(lane, data.map((_, k) => ids[files[from + k]!]!), lamports.slice(from, from + data.length), data as Buffer[]) : undefined)) : undefined
      checked?.catch(() => undefined)
      ahead.push({from, got, checked, holder})
      this.next += CHUNK
    }
    // every record file asked for: cat-file ends once it has answered (while the last
    // chunks are checked and cached, not after: it takes ~20 ms to end)
    if (this.spool && !this.odd && this.listed && this.next >= files.length) this.spool.endRequests()
  }

  /**
   * Take a chunk's records: each one checked (here, when no thread checked them) and added,
   * or named when it fails its checks. Sets `odd` when the lane is not plain after all.
   */
  private async settle(cur: InFlight, data: (Buffer | Error)[], checked: Checked[] | undefined): Promise<void> {
    const add: CacheAdd[] = []
    for (let k = 0; k < data.length && !this.odd; ) {
      k = this.take(cur.from, data, checked, k, add)
      if (k >= data.length || this.odd) break
      // a record file that fails its checks is named and left out, as the general reader
      // names it (lane-check.ts, settle): one hostile record does not send its whole lane
      // to the commit-by-commit read (20,000 records with one forged: 0.69 s, against 1.12 s)
      // (unless its file is not what its own commit added: a later commit rewrote it, which
      // only the general reader can tell apart, keeping the bytes of the record's commit)
      if (this.failed) {
        const n = cur.from + k
        const id = this.ids[this.files[n]!]!
        const kind = kindOfId(id)!
        if (!(await addedBy(this.ctx.reader, this.oids[n]!, recordPath(kind, id), this.blobs[this.files[n]!]!))) {
          this.odd = true
          break
        }
        this.bad.push(this.failed.map(f => ({...problem(f.code, f.message, {ref: this.ref, commit: this.oids[n]!, path: recordPath(kind, id), id}), ref: this.ref})))
        this.failed = undefined
        k++
      } else {
        // every so often a turn of the event loop: cat-file's answers are taken from its pipe meanwhile
        await new Promise(resolve => setImmediate(resolve))
      }
    }
    if (!this.odd) for (const e of this.writer ? this.writer.addData(add) : add.map(a => memEntry(a, this.ref))) this.added.push(e)
  }

  /** the problems of the record take() stopped at */
  private failed: Finding[] | undefined

  /**
   * The records of a chunk from `k` on, added to `add` while they pass; returns where it
   * stopped: the end, a record that failed its checks (`failed`), or, checking here, after
   * sixteen records (a turn of the event loop is due).
   */
  private take(from: number, data: (Buffer | Error)[], checked: Checked[] | undefined, k: number, add: CacheAdd[]): number {
    const {ids, files, lamports, oids} = this
    const lane = this.info.lane
    for (; k < data.length; k++) {
      if (!checked && k % 16 === 15 && !this.yielded) {
        this.yielded = true
        return k
      }
      this.yielded = false
      const n = from + k
      const id = ids[files[n]!]!
      const kind = kindOfId(id)!
      const bytes = data[k]!
      const r = bytes instanceof Error ? undefined : (checked?.[k] ?? checkOne(bytes, {lane, kind, id, lamport: lamports[n]}))
      if (r?.problems) {
        this.failed = r.problems
        return k
      }
      // (newest first: each lamport below the one listed before it; Exp-Lamport of the one before)
      if (!r || r.artifacts || (n > 0 && !(r.lamport < lamports[n - 1]!))) {
        this.odd = true
        return k
      }
      add.push({id: r.id, kind, digest: r.digest, lamport: r.lamport, commit: oids[n]!, cites: r.cites.length ? r.cites : NO_CITES, facts: r.facts, bytes: bytes as Buffer, pre: r.pre, created: r.created})
    }
    return k
  }

  /** take() returned for a turn of the event loop at this record: the next call goes on from it */
  private yielded = false
}

const NO_CITES: readonly string[] = Object.freeze([])

/** Whether the file at `path` in commit `commit` is the blob `blob` (false on anything unexpected). */
async function addedBy(reader: ObjectReader, commit: string, path: string, blob: string): Promise<boolean> {
  try {
    const o = await reader.read(commit, OBJECT_MAX)
    return o.type === 'commit' && (await lookupPath(reader, parseCommit(o.data, commit).tree, path))?.oid === blob
  } catch {
    return false
  }
}

/** lanes with at least this many record files are fetched through a spool file */
const SPOOL_MIN = 1000

let tightened = 0

/**
 * Hold V8's heap growth to 1.5x while full reads run, and collect the young generation only
 * when it is full (not also from a task V8 schedules once it is 80% full: the objects of the
 * chunks in flight survive either way, so more scavenges only copy them more often; ~15% fewer
 * scavenges). The returned function undoes both (0: V8 chooses the growth again).
 */
function tightHeap(): () => void {
  if (tightened++ === 0) v8.setFlagsFromString('--heap-growing-percent=50 --no-minor-gc-task')
  return () => {
    if (--tightened === 0) v8.setFlagsFromString('--heap-growing-percent=0 --minor-gc-task')
  }
}

/** lanes of at most this many commits are read in process (fewCommits) */
const SMALL_LANE = 16

/**
 * The commits of the lane at `tip` when it has at most `max`, none a merge: its first parents
 * walked, and their diffs read, through the shared cat-file reader (no process started).
 * Undefined on anything unexpected (a missing object, a merge): the lane is then read the
 * usual way, which names it.
 */
async function fewCommits(reader: ObjectReader, tip: string, max: number): Promise<LaneCommit[] | undefined> {
  // (the whole lane back to its root, read once: the walk that tells it is small is its read)
  const all = await nearLaneCommits(reader, tip, undefined, max)
  return all && all.length > 0 && all.every(c => c.parents.length <= 1) ? all : undefined
}

async function* listed(commits: LaneCommit[]): AsyncGenerator<LaneCommit[]> {
  yield commits
}

async function* incrementalChunks(ctx: LaneReadContext, tip: string, stop: string | undefined): AsyncGenerator<LaneCommit[]> {
  // a few commits since the cached tip (what this process or another just appended): read
  // through the running cat-file, without starting git log
  const near = ctx.native && stop ? await nearLaneCommits(ctx.reader, tip, stop, NEAR_COMMITS) : undefined
  if (near) {
    if (near.length > 0) yield near
  } else if (ctx.native) yield* laneCommitChunksNative(ctx.commonDir, tip, stop, CHUNK)
  else yield* isoChunks(ctx.reader, tip, stop)
}

async function* isoChunks(reader: ObjectReader, tip: string, stop?: string): AsyncGenerator<LaneCommit[]> {
  const all = await laneCommitsIso(reader, tip, stop)
  for (let i = 0; i < all.length; i += CHUNK) yield all.slice(i, i + CHUNK)
}

export type {Located}
