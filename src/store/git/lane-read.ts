import {encodeFacts, isKind, kindConstant, parseRecordPath, recordPath} from '../../records/index.js'
import {parseLaneRef} from '../lanes.js'
import type {LedgerEntry} from '../ledger.js'
import type {ReadProblem} from '../port.js'
import {problem} from '../problems.js'
import type {LedgerCache, LaneState, CacheAdd, CachedEntry} from './cache.js'
import {laneCommitChunksNative, laneCommitsIso, type LaneCommit} from './log.js'
import type {ObjectReader} from './reader.js'
import {checkRecordBytes} from './record-bytes.js'
import {listTreeNative} from './tree-list.js'
import {recordChange, unnamedArtifacts, type Located} from './verify.js'
import {trailersOf} from './message.js'

/** An entry read from history, its bytes kept when there is no cache to point into. */
export interface MemEntry extends LedgerEntry {
  bytes: Buffer
}

export interface LaneReadContext {
  commonDir: string
  reader: ObjectReader
  native: boolean
  cache: LedgerCache
}

export interface LaneReadResult {
  entries: LedgerEntry[]
  problems: ReadProblem[]
  state?: LaneState
  /** whether the commit `watch` (a tip seen before) was among the commits read */
  sawWatch: boolean
}

const CHUNK = 256
const NO_CITES: readonly string[] = Object.freeze([])

function memEntry(a: CacheAdd, ref: string): MemEntry {
  const info = parseLaneRef(ref)!
  return {id: a.id, kind: a.kind, digest: a.digest, lane: info.lane, ref, private: info.private, lamport: a.lamport, commit: a.commit, cites: a.cites, ...(a.facts ? {facts: a.facts} : {}), bytes: a.bytes}
}
const ID_RE = /^[a-z]{2}-[0-9a-f]{24}$/

/**
 * Memory for the record bytes of the chunks in flight, in 1 MiB slabs given back once a chunk
 * is in the cache and used again. Streaming 100,000 records through fresh buffers left tens
 * of MB of buffers waiting for a full garbage collection; reused slabs keep the peak flat.
 */
class Slabs {
  private free: Buffer[] = []
  static readonly SIZE = 1024 * 1024

  /** A holder of the slabs of one chunk: copies bytes in, gives them all back at once. */
  holder(): {keep: (data: Buffer) => Buffer; release: () => void} {
    const mine: Buffer[] = []
    let cur: Buffer | undefined
    let used = 0
    return {
      keep: data => {
        // a record larger than a slab gets its own buffer (not pooled)
        if (data.length > Slabs.SIZE) return Buffer.from(data)
        if (!cur || used + data.length > cur.length) {
          cur = this.free.pop() ?? Buffer.allocUnsafeSlow(Slabs.SIZE)
          mine.push(cur)
          used = 0
        }
        const out = cur.subarray(used, used + data.length)
        data.copy(out)
        used += data.length
        return out
      },
      release: () => {
        for (const b of mine.splice(0)) if (this.free.length < 16) this.free.push(b)
        cur = undefined
      },
    }
  }
}

/** The record blobs of commits, read in one batch (then checked by checkChunk). */
async function fetchRecords(reader: ObjectReader, commits: LaneCommit[], keep?: (data: Buffer) => Buffer): Promise<{located: ReturnType<typeof recordChange>[]; got: (Buffer | Error)[]}> {
  const located = commits.map(c => recordChange(c))
  return {located, got: await reader.readMany(located.flatMap(l => ('blob' in l ? [l.blob] : [])), keep)}
}

/** Check fetched records in process: good ones become entries, bad ones problems. */
async function checkChunk(ref: string, commits: LaneCommit[], {located, got}: Awaited<ReturnType<typeof fetchRecords>>): Promise<{add: CacheAdd[]; problems: ReadProblem[]}> {
  const info = parseLaneRef(ref)!
  const add: CacheAdd[] = []
  const problems: ReadProblem[] = []
  let gi = 0
  for (const [k, c] of commits.entries()) {
    // every so often a turn of the event loop: cat-file's answers for the next chunk are
    // taken from its pipe (64 KiB), which would otherwise fill and stop it while this checks
    if (k % 64 === 63) await new Promise(resolve => setImmediate(resolve))
    const loc = located[k]!
    if ('problem' in loc) {
      problems.push({...problem(loc.problem.code, loc.problem.message, {ref, commit: c.oid, path: loc.path}), ref})
      continue
    }
    const data = got[gi++]!
    if (data instanceof Error) {
      problems.push({...problem('record-unreadable', `unreadable object ${loc.blob}: ${data.message}`, {ref, commit: c.oid, path: loc.path, id: loc.id}), ref})
      continue
    }
    const checked = checkRecordBytes(data, {lane: info.lane, kind: loc.kind, id: loc.id, lamport: loc.lamport})
    if (!checked.ok) {
      for (const f of checked.problems ?? []) problems.push({...problem(f.code, f.message, {ref, commit: c.oid, path: loc.path, id: loc.id}), ref})
      continue
    }
    const record = checked.ok.record
    const stray = unnamedArtifacts(loc, record)
    if (stray.length) {
      problems.push({...problem('commit-changes', `the commit adds ${stray.join(', ')}, which its record does not name`, {ref, commit: c.oid, path: stray[0], id: loc.id}), ref})
      continue
    }
    const facts = encodeFacts(record)
    // the kind as the one constant string, and one empty cites list for all: 100,000 entries stay in memory
    add.push({id: record.id, kind: kindConstant(loc.kind)!, digest: record.digest, lamport: record.lamport, commit: c.oid, cites: record.cites.length ? record.cites : NO_CITES, facts, bytes: data, pre: checked.ok.pre, created: record.created_at})
  }
  return {add, problems}
}

/**
 * A full read of a lane through the git binary: `git log` without diffs (the commits and their
 * trailers) and `git ls-tree -r` of the tip (every record file: the lane tree is cumulative)
 * run at once, and each commit gets the file its trailer names. Diffing every commit against
 * its parent is most of what a full `git log --raw` costs; the checks that need the diffs
 * (one added file per commit, nothing modified) are made by incremental reads and `exp fsck`.
 */
async function* fullChunksNative(commonDir: string, ref: string, tip: string, problems: ReadProblem[]): AsyncGenerator<LaneCommit[]> {
  // (the problems of single commits travel on the commit: recordChange reports them)
  const tree = listTreeNative(commonDir, tip)
  tree.catch(() => undefined) // awaited below; not unhandled until then
  let files: Map<string, string> | undefined
  for await (const chunk of laneCommitChunksNative(commonDir, tip, undefined, CHUNK, 2, false, false)) {
    files ??= await tree
    for (const c of chunk) {
      const rec = trailersOf(c).record
      if (!rec || !isKind(rec.kind) || !ID_RE.test(rec.id)) continue // recordChange reports it
      const p = recordPath(rec.kind, rec.id)
      const blob = files.get(p)
      // a claimed path keeps its key with an empty value: a second claim is told from a missing file
      if (blob === undefined) c.problem = {code: 'record-missing', message: `the record file ${p} named by this commit is not in the lane's tree (deleted or moved later)`}
      else if (blob === '') c.problem = {code: 'commit-changes', message: `${p} is added by another commit of this lane too: records are append-only`}
      else {
        files.set(p, '')
        c.changes = [{status: 'A', path: p, blob}]
      }
    }
    yield chunk
  }
  files ??= await tree
  for (const [p, blob] of files) {
    if (!blob) continue
    const parsed = parseRecordPath(p)
    if (parsed) problems.push({...problem('record-unclaimed', `${p} (${blob.slice(0, 12)}) is in the lane's tree but no record commit added it`, {ref, path: p, id: parsed.id}), ref})
  }
}

/**
 * Read one lane from `st` (its cached state: only the commits since its tip, with their
 * diffs) or in full, writing the records to the cache as they are checked. Returns undefined
 * when the cached tip is not an ancestor of the new tip (the lane was rewritten): read it in
 * full then. Throws when the lane's history cannot be walked (missing objects).
 * A full read with the git binary goes newest first (git streams as it walks, so nothing
 * waits for the whole walk); the entries are put in lane order at the end.
 */
export async function readLane(ctx: LaneReadContext, ref: string, tip: string, st: LaneState | undefined, persist: boolean, start: LedgerEntry[] | undefined, watch: string | undefined): Promise<LaneReadResult | undefined> {
  const info = parseLaneRef(ref)!
  const newestFirst = !st && ctx.native
  const structural: ReadProblem[] = []
  const added: LedgerEntry[] = []
  const found: ReadProblem[] = []
  let first = true
  let sawWatch = false
  const writer = persist ? ctx.cache.writer(ref, st, info.lane, info.private) : undefined
  const chunks: AsyncGenerator<LaneCommit[]> = st ? incrementalChunks(ctx, tip, st.tip) : ctx.native ? fullChunksNative(ctx.commonDir, ref, tip, structural) : isoChunks(ctx.reader, tip)
  // a pipeline: git log runs ahead, and the blobs of the next chunk are requested from
  // cat-file as soon as git log has listed it, so both git processes work while this one
  // checks and caches the chunk before
  // (bytes kept in entries, without a cache, must not be in slabs that are used again)
  const slabs = writer ? new Slabs() : undefined
  const fetchNext = async () => {
    const n = await chunks.next()
    if (n.done) return undefined
    const holder = slabs?.holder()
    const fetched = fetchRecords(ctx.reader, n.value, holder?.keep)
    fetched.catch(() => undefined) // awaited in its turn; not unhandled until then
    return {chunk: n.value, fetched, holder}
  }
  try {
    let cur = await fetchNext()
    while (cur) {
      const chunk = cur.chunk
      if (first && st && chunk[0]!.parents[0] !== st.tip) return undefined
      first = false
      if (watch && !sawWatch) sawWatch = chunk.some(c => c.oid === watch)
      const fetched = await cur.fetched
      const next = fetchNext()
      next.catch(() => undefined) // awaited below; not unhandled until then
      // one turn of the event loop: the next chunk, usually already listed, has its blobs requested
      await new Promise(resolve => setImmediate(resolve))
      const {add, problems: bad} = await checkChunk(ref, chunk, fetched)
      for (const e of writer ? writer.addData(add) : add.map(a => memEntry(a, ref))) added.push(e)
      cur.holder?.release()
      for (const p of bad) found.push(p)
      cur = await next
    }
    if (first && st) return undefined
  } finally {
    await chunks.return(undefined)
  }
  if (newestFirst) {
    added.reverse()
    found.reverse()
  }
  // problems found after the last commit (files of the tree no commit added)
  found.push(...structural)
  const problems = [...(st?.problems ?? []), ...found]
  const entries = st ? [...(start ?? []), ...added] : added
  const state = writer?.finish(added as CachedEntry[], tip, problems)
  return {entries, problems, state, sawWatch}
}

async function* incrementalChunks(ctx: LaneReadContext, tip: string, stop: string): AsyncGenerator<LaneCommit[]> {
  if (ctx.native) yield* laneCommitChunksNative(ctx.commonDir, tip, stop, CHUNK)
  else yield* isoChunks(ctx.reader, tip, stop)
}

async function* isoChunks(reader: ObjectReader, tip: string, stop?: string): AsyncGenerator<LaneCommit[]> {
  const all = await laneCommitsIso(reader, tip, stop)
  for (let i = 0; i < all.length; i += CHUNK) yield all.slice(i, i + CHUNK)
}

export type {Located}
