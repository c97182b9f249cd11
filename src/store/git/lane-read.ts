import path from 'node:path'
import v8 from 'node:v8'
import {kindOfId, recordIdAtPath, recordPath} from '../../records/index.js'
import {problem} from '../problems.js'
import {parseLaneRef} from '../lanes.js'
import type {LedgerEntry} from '../ledger.js'
import type {ReadProblem} from '../port.js'
import type {LedgerCache, LaneState, CacheAdd, CachedEntry} from './cache.js'
import {laneCommitChunksNative, laneCommitsIso, type LaneCommit} from './log.js'
import type {ObjectReader} from './reader.js'
import {OBJECT_MAX, parseCommit} from './objects.js'
import {lookupPath} from './tree.js'
import {eachLaneCommit, eachTreeEntry, type LeanCommit} from './tree-list.js'
import type {Located} from './verify.js'
import {Slabs, fetchRecords, checkInProcess, checkOne, type SlabHolder} from './lane-check.js'
import {CatFileSpool} from './cat-file-spool.js'
import {CheckPool} from './check-pool.js'
import type {Checked} from './check-one.js'

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
  const small = !st && ctx.native && (await fewCommits(ctx.reader, tip, SMALL_LANE))
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
  const chunks: AsyncGenerator<LaneCommit[]> = small ? isoChunks(ctx.reader, tip) : incrementalChunks(ctx, tip, st?.tip)
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
 * tree that no other commit names, none is a merge, every file of the tree is a record at
 * its own path and is named, lamports grow along the lane (by their Exp-Lamport), no record
 * has artifacts. A record file that fails its checks is named and left out, as the general
 * reader does it. Anything else returns undefined and the lane is read by the general
 * reader below, which names what is wrong. (The checks that need each commit's diff are made by incremental reads
 * and `exp fsck`: a later commit that also rewrites an earlier record's file — a keyed
 * record's new bytes can pass every check of the bytes — is named by them, not by this read;
 * docs/trust.md.)
 */
async function readPlainLane(ctx: LaneReadContext, ref: string, tip: string, persist: boolean, watch: string | undefined): Promise<LaneReadResult | undefined> {
  const info = parseLaneRef(ref)!
  // the record files, by their index in the tree: blob ids and record ids only (the path is theirs by rule)
  const blobs: string[] = []
  const ids: string[] = []
  // id -> its index; -1 once a commit has named it
  const where = new Map<string, number>()
  // the commits as git log lists them (newest first), each with the index of the file it names
  const oids: string[] = []
  const files: number[] = []
  const lamports: number[] = []
  let odd = false
  let listed = false
  let wake: (() => void) | undefined
  const notify = () => {
    const w = wake
    wake = undefined
    w?.()
  }
  // commits listed before the tree is in: kept as they came, placed once it is
  const early: LeanCommit[] = []
  let treeIn = false
  const place = (c: LeanCommit): boolean => {
    // Exp-Record is `kind/id`: the id's file, and the kind its id's prefix gives
    const slash = c.record?.indexOf('/') ?? -1
    const id = slash > 0 ? c.record!.slice(slash + 1) : ''
    const at = where.get(id)
    if (c.odd || c.merge || at === undefined || named[at] || files.length >= blobs.length || !Number.isSafeInteger(c.lamport)) return false
    const kind = kindOfId(id)!
    if (slash !== kind.length || !c.record!.startsWith(kind)) return false
    named[at] = 1 // a second commit naming it is not plain
    oids.push(c.oid)
    files.push(at)
    lamports.push(c.lamport!)
    return true
  }
  // git log's output is taken in once the tree is: until then this thread is the one that
  // has work (the tree's listing holds up every fetch; the commits could only wait in `early`)
  let treeListed!: () => void
  const held = new Promise<void>(resolve => (treeListed = resolve))
  const log = eachLaneCommit(
    ctx.commonDir,
    tip,
    c => {
      // (once the lane is known not to be plain, git log is stopped)
      const ok = !odd && (treeIn ? place(c) : (early.push(c), true))
      if (!ok) odd = true
      notify()
      return ok
    },
    held,
  )
  log.then(
    () => ((listed = true), notify()),
    () => ((odd = true), (listed = true), notify()),
  )
  // the check thread of a large lane, started as soon as the listing shows the lane is large
  // (it loads its modules while the rest of the tree is listed)
  let pool: CheckPool | undefined
  let plainTree: boolean
  try {
    plainTree = await eachTreeEntry(ctx.commonDir, tip, (buf, oid, at, end) => {
      // a record at its own path: <kind dir>/<2 hex of the id>/<id>.json (read from the bytes)
      const id = recordIdAtPath(buf, at, end)
      if (id === undefined) return false
      where.set(id, blobs.length)
      blobs.push(buf.toString('latin1', oid, at - 1))
      ids.push(id)
      if (blobs.length === SPOOL_MIN && persist) pool = CheckPool.open()
      return true
    })
  } catch {
    plainTree = false
  }
  // which tree files a commit has named (by their place in the listing)
  const named = new Uint8Array(blobs.length)
  treeIn = true
  treeListed()
  for (const c of early.splice(0)) if (!odd && !place(c)) odd = true
  if (!plainTree) odd = true
  const writer = odd ? undefined : persist ? ctx.cache.writer(ref, undefined, info.lane, info.private) : undefined
  const slabs = writer ? new Slabs() : undefined
  const added: LedgerEntry[] = []
  // the problems of record files that fail their checks, a list a record, newest first
  const bad: ReadProblem[][] = []
  // a large lane's records are fetched through a spool file (cat-file-spool.ts), a small one's through the shared pipe
  const spool = !odd && blobs.length >= SPOOL_MIN ? CatFileSpool.open(ctx.commonDir, path.join(ctx.commonDir, 'exp')) : undefined
  const reader = spool ?? ctx.reader
  // and checked on a second thread, when there is a cache to write (the bytes are in shared slabs then)
  if (pool && !(spool && slabs)) {
    await pool.close()
    pool = undefined
  }
  const thread = pool
  const tight = tightHeap()
  try {
    // the blobs of the next SPOOL_AHEAD chunks are asked of cat-file while one is checked,
    // as soon as git log has listed their commits
    const ahead: {from: number; got: Promise<(Buffer | Error)[]>; checked?: Promise<Checked[] | undefined>; holder?: SlabHolder}[] = []
    let next = 0
    const ask = () => {
      while (!odd && ahead.length < (spool ? SPOOL_AHEAD : FETCH_AHEAD) && (next + CHUNK <= files.length || (listed && next < files.length))) {
        const holder = slabs?.holder()
        const got = reader.readMany(
          files.slice(next, next + CHUNK).map(i => blobs[i]!),
          holder?.keep,
          ctx.maxRead,
        )
        got.catch(() => undefined) // awaited in its turn; not unhandled until then
        // checked on the pool's thread as soon as they are in (a chunk with an unreadable blob is not plain)
        const from = next
        const checked = thread ? got.then(data => (data.every(b => b instanceof Buffer) ? thread.check(info.lane, data.map((_, k) => ids[files[from + k]!]!), lamports.slice(from, from + data.length), data as Buffer[]) : undefined)) : undefined
        checked?.catch(() => undefined)
        ahead.push({from, got, checked, holder})
        next += CHUNK
      }
      // every record file asked for: cat-file ends once it has answered (while the last
      // chunks are checked and cached, not after: it takes ~20 ms to end)
      if (spool && !odd && listed && next >= files.length) spool.endRequests()
    }
    for (;;) {
      ask()
      if (odd) break
      const cur = ahead.shift()
      if (!cur) {
        if (listed) break
        await new Promise<void>(resolve => (wake = resolve))
        continue
      }
      const data = await cur.got
      ask()
      const checked = await cur.checked
      if (cur.checked && !checked) odd = true
      const add: CacheAdd[] = []
      for (let k = 0; k < data.length && !odd; k++) {
        // every so often a turn of the event loop: cat-file's answers are taken from its pipe meanwhile
        if (!checked && k % 16 === 15) await new Promise(resolve => setImmediate(resolve))
        const n = cur.from + k
        const id = ids[files[n]!]!
        const kind = kindOfId(id)!
        const bytes = data[k]!
        const r = bytes instanceof Error ? undefined : (checked?.[k] ?? checkOne(bytes, {lane: info.lane, kind, id, lamport: lamports[n]}))
        // a record file that fails its checks is named and left out, as the general reader
        // names it (lane-check.ts, settle): one hostile record does not send its whole lane
        // to the commit-by-commit read (20,000 records with one forged: 0.69 s, against 1.12 s)
        if (r?.problems) {
          // (unless its file is not what its own commit added: a later commit rewrote it, which
          // only the general reader can tell apart, keeping the bytes of the record's commit)
          if (!(await addedBy(ctx.reader, oids[n]!, recordPath(kind, id), blobs[files[n]!]!))) {
            odd = true
            break
          }
          bad.push(r.problems.map(f => ({...problem(f.code, f.message, {ref, commit: oids[n]!, path: recordPath(kind, id), id}), ref})))
          continue
        }
        // (newest first: each lamport below the one listed before it; Exp-Lamport of the one before)
        if (!r || r.artifacts || (n > 0 && !(r.lamport < lamports[n - 1]!))) odd = true
        else add.push({id: r.id, kind, digest: r.digest, lamport: r.lamport, commit: oids[n]!, cites: r.cites.length ? r.cites : NO_CITES, facts: r.facts, bytes: bytes as Buffer, pre: r.pre, created: r.created})
      }
      if (!odd) for (const e of writer ? writer.addData(add) : add.map(a => memEntry(a, ref))) added.push(e)
      cur.holder?.release()
    }
    // every file of the tree named by a commit
    if (!odd && files.length !== blobs.length) odd = true
    if (odd) {
      for (const {got} of ahead) await got.catch(() => undefined)
      await log.catch(() => undefined)
      writer?.abort()
      return undefined
    }
  } catch {
    await log.catch(() => undefined)
    writer?.abort()
    return undefined
  } finally {
    tight()
    await spool?.close()
    await pool?.close()
  }
  added.reverse()
  const found = bad.reverse().flat()
  const state = writer?.finish(added as CachedEntry[], tip, found)
  return {entries: added, problems: found, state, sawWatch: watch !== undefined && oids.includes(watch)}
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
 * Whether the lane at `tip` has at most `max` commits, none a merge: its first parents walked
 * through the shared cat-file reader (no process started). False on anything unexpected (a
 * missing object, a merge): the lane is then read the usual way, which names it.
 */
async function fewCommits(reader: ObjectReader, tip: string, max: number): Promise<boolean> {
  let oid: string | undefined = tip
  try {
    for (let n = 0; oid && n < max; n++) {
      const o = await reader.read(oid, OBJECT_MAX)
      if (o.type !== 'commit') return false
      const c = parseCommit(o.data, oid)
      if (c.parents.length > 1) return false
      oid = c.parents[0]
    }
  } catch {
    return false
  }
  return oid === undefined
}

async function* incrementalChunks(ctx: LaneReadContext, tip: string, stop: string | undefined): AsyncGenerator<LaneCommit[]> {
  if (ctx.native) yield* laneCommitChunksNative(ctx.commonDir, tip, stop, CHUNK)
  else yield* isoChunks(ctx.reader, tip, stop)
}

async function* isoChunks(reader: ObjectReader, tip: string, stop?: string): AsyncGenerator<LaneCommit[]> {
  const all = await laneCommitsIso(reader, tip, stop)
  for (let i = 0; i < all.length; i += CHUNK) yield all.slice(i, i + CHUNK)
}

export type {Located}
