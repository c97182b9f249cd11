import {kindConstant} from '../../records/index.js'
import {parseLaneRef} from '../lanes.js'
import type {ReadProblem} from '../port.js'
import {problem, type Problem} from '../problems.js'
import type {CacheAdd} from './cache.js'
import type {LaneCommit} from './log.js'
import {OBJECT_MAX, ObjectTooLarge} from './objects.js'
import type {ObjectReader} from './reader.js'
import {checkOne, type Checked} from './check-one.js'
import {recordChange, unnamedArtifacts, type Located} from './verify.js'

export {checkOne, type Checked}

const NO_CITES: readonly string[] = Object.freeze([])
/** (a chunk of 256 records of ~1.7 KB, the store bench's, is ~420 KB: one slab; 1 MiB slabs held ~10 MB more with sixteen chunks in flight) */
const SLAB = 512 * 1024

/**
 * Memory for the record bytes of the chunks in flight, in 512 KiB slabs given back once a chunk
 * is in the cache and used again. Streaming 100,000 records through fresh buffers left tens
 * of MB of buffers waiting for a full garbage collection; reused slabs keep the peak flat.
 */
export class Slabs {
  private free: Buffer[] = []

  holder(): SlabHolder {
    return new SlabHolder(this.free)
  }
}

/** The slabs of one chunk: bytes are copied in as they arrive, and all given back at once. */
export class SlabHolder {
  private slabs: Buffer[] = []
  private used = 0

  constructor(private readonly free: Buffer[]) {}

  /** Copy `data` (a view into a pipe's buffer) into this chunk's slabs. */
  keep = (data: Buffer): Buffer => {
    // a record larger than a slab gets its own buffer (not used again)
    if (data.length > SLAB) return Buffer.from(data)
    let cur = this.slabs[this.slabs.length - 1]
    if (!cur || this.used + data.length > cur.length) {
      // (shared memory: a CheckPool's thread reads the records where they are, check-pool.ts)
      this.slabs.push((cur = this.free.pop() ?? Buffer.from(new SharedArrayBuffer(SLAB))))
      this.used = 0
    }
    const out = cur.subarray(this.used, this.used + data.length)
    data.copy(out)
    this.used += data.length
    return out
  }

  release(): void {
    // (kept for the chunks in flight: up to 16 at once, each in one slab or two)
    for (const b of this.slabs.splice(0)) if (this.free.length < 32) this.free.push(b)
  }
}

export interface Fetched {
  located: ReturnType<typeof recordChange>[]
  got: (Buffer | Error)[]
}

/** The record blobs of commits, read in one batch (then checked by one of the checks below). */
export async function fetchRecords(reader: ObjectReader, commits: LaneCommit[], keep?: (data: Buffer) => Buffer, max?: number): Promise<Fetched> {
  const located = commits.map(c => recordChange(c))
  const blobs: string[] = []
  for (const l of located) if ('blob' in l) blobs.push(l.blob)
  return {located, got: await reader.readMany(blobs, keep, max)}
}

type Outcome = {add: CacheAdd[]; problems: ReadProblem[]}

/** Walk a chunk's commits with what was fetched for them: commit problems, unreadable blobs, and each record's bytes. */
function walk(ref: string, commits: LaneCommit[], {located, got}: Fetched, out: Outcome, onRecord: (c: LaneCommit, loc: Located, data: Buffer, k: number) => void): void {
  let gi = 0
  for (const [k, c] of commits.entries()) {
    const loc = located[k]!
    if ('problem' in loc) {
      out.problems.push({...problem(loc.problem.code, loc.problem.message, {ref, commit: c.oid, path: loc.path}), ref})
      continue
    }
    const data = got[gi++]!
    if (data instanceof Error) out.problems.push({...unreadable(loc.blob, data, {ref, commit: c.oid, path: loc.path, id: loc.id}), ref})
    else onRecord(c, loc, data, k)
  }
}

/** The entry of a checked record, or the problems it has. */
function settle(ref: string, c: LaneCommit, loc: Located, data: Buffer, r: Checked, out: Outcome): void {
  const at = (path: string | undefined) => ({ref, commit: c.oid, path, id: loc.id})
  if (r.problems) {
    for (const f of r.problems) out.problems.push({...problem(f.code, f.message, at(loc.path)), ref})
    return
  }
  const stray = unnamedArtifacts(loc, {artifacts: r.artifacts?.map(path => ({path}))})
  if (stray.length) {
    out.problems.push({...problem('commit-changes', `the commit adds ${stray.join(', ')}, which its record does not name`, at(stray[0])), ref})
    return
  }
  // the kind as the one constant string, and one empty cites list for all: 100,000 entries stay in memory
  out.add.push({id: r.id, kind: kindConstant(loc.kind)!, digest: r.digest, lamport: r.lamport, commit: c.oid, cites: r.cites.length ? r.cites : NO_CITES, facts: r.facts, bytes: data, pre: r.pre, created: r.created})
}

/** Check fetched records in this thread: good ones become entries, bad ones problems. */
export async function checkInProcess(ref: string, commits: LaneCommit[], fetched: Fetched): Promise<Outcome> {
  const lane = parseLaneRef(ref)!.lane
  const out: Outcome = {add: [], problems: []}
  const records: [LaneCommit, Located, Buffer][] = []
  walk(ref, commits, fetched, out, (c, loc, data) => records.push([c, loc, data]))
  for (let k = 0; k < records.length; k++) {
    const [c, loc, data] = records[k]!
    // every so often a turn of the event loop: cat-file's answers for the next chunks are
    // taken from its pipe (64 KiB, ~40 records), which would otherwise fill and stop it while
    // this checks (every 64 records left it stopped, and the read waiting on it, ~10% of the time)
    if (k % 16 === 15) await new Promise(resolve => setImmediate(resolve))
    settle(ref, c, loc, data, checkOne(data, {lane, kind: loc.kind, id: loc.id, lamport: loc.lamport}), out)
  }
  return out
}

/**
 * The problem of a record file that could not be read: too large to be read at all (a limit
 * of the read, see readCeiling in store.ts), or missing or damaged.
 */
export function unreadable(blob: string, e: Error, at: Omit<Problem, 'code' | 'message'>): Problem {
  if (e instanceof ObjectTooLarge) {
    return problem('record-too-large', `the record file (${blob}) is ${e.size} bytes, over the ${e.max}-byte limit of a read: not read`, at)
  }
  return problem('record-unreadable', `unreadable object ${blob}: ${e.message}`, at)
}

/**
 * The problem of a lane whose tip is a commit over OBJECT_MAX: exp never writes one, so the
 * next step is not a re-fetch (the remote has the same object) but moving the lane back.
 */
export function tipTooLarge(ref: string, tip: string, size: number): Problem {
  const short = tip.slice(0, 12)
  return problem('lane-unreadable', `${ref} cannot be read: its tip ${short} is a ${size}-byte object, over the ${OBJECT_MAX} bytes exp reads of a commit: not read`, {
    ref,
    commit: tip,
    hint: `exp never writes a commit that large: it was put on the lane by hand or by a push. Look at it (\`git log -1 --stat ${short}\`) and point the lane back at the commit before it (\`git update-ref ${ref} ${short}^\`)`,
  })
}
