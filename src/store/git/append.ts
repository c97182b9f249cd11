import {prepare, seal, encodeRecord, recordPath, utcTimestamp, type RecordDraft, type Kind} from '../../records/index.js'
import {ArtifactTooLargeError, ConflictError, CorruptObjectError, RecordTooLargeError} from '../../errors/index.js'
import {laneRef, parseLaneRef, validateLane} from '../lanes.js'
import type {AppendOptions, AppendResult} from '../port.js'
import {RefLock} from '../../git/lock.js'
import {encodeCommit, OBJECT_MAX, parseCommit, type CommitData, type Signature} from './objects.js'
import type {CommitSigner} from './sign.js'
import type {ObjectReader, WrittenObject} from './reader.js'
import {LooseSink, PackSink, type ObjectSink} from './writer.js'
import {MutableTree, lookupPaths} from './tree.js'
import {recordMessage, parseTrailers} from './message.js'
import {NEAR_WRITTEN} from './log.js'
import {refuseSecrets} from '../secrets.js'
import {checkRecordBytes} from './record-bytes.js'

export interface AppendContext {
  commonDir: string
  reader: ObjectReader
  config(key: string): Promise<string | undefined>
  /** the lane refs and their tips */
  laneTips(): Promise<Map<string, string | undefined>>
  /** batches at least this large are written as one pack file */
  packThreshold: number
  /** the largest record file accepted (bytes) */
  maxRecordBytes(): Promise<number>
  /** the largest artifact accepted (bytes) */
  maxArtifactBytes(): Promise<number>
  /** the signer of evidence commits, when a signing key is configured (docs/trust.md) */
  signer(): Promise<CommitSigner | undefined>
}

/** The records whose commits are signed when a signing key is configured: what decides (docs/trust.md). */
const SIGNED_KINDS: ReadonlySet<Kind> = new Set(['evaluation', 'decision', 'verdict'])

interface Existing {
  digest: string
  lane: string
  ref: string
  lamport: number
  commit?: string
}

/**
 * The highest lamport a tip may carry the clock on from: 2^32 appends short of the largest
 * safe integer, so that no lane, whatever it holds, leaves the others no room to count on.
 */
const CLOCK_MAX = Number.MAX_SAFE_INTEGER - 2 ** 32
/**
 * The highest lamport a lane's own tip carries its clock on from: 2^31 appends past CLOCK_MAX
 * (a lane pushed there by another's clock counts on; one whose tip was set near 2^53 by someone
 * else's commit is not stopped by it).
 */
const OWN_CLOCK_MAX = Number.MAX_SAFE_INTEGER - 2 ** 31
/** commits that are not records passed over below a tip, looking for its clock */
const CLOCK_WALK = 64

/**
 * Appends to lanes (docs/architecture.md, "The store"): drafts are validated and identified
 * before anything is locked; then, under the lane's lock, existing ids are looked up in every
 * lane's tip tree, Lamport clocks continue from the highest tip, objects are written, and only
 * then the ref moves.
 */
export class LaneWriter {
  /** a commit's tree and the lamport its record commit carries (raw: any safe integer from 1, else 0) */
  private commitTree = new Map<string, {tree: string; lamport: number}>()
  constructor(private readonly ctx: AppendContext) {}

  async appendBatch(drafts: readonly RecordDraft[], opts: AppendOptions): Promise<AppendResult[]> {
    const lane = validateLane(opts.lane)
    const ref = laneRef(lane, opts.private)
    const prepared = drafts.map(d => prepare(d))
    refuseSecrets(prepared, undefined, lane)
    const limit = await this.ctx.maxRecordBytes()
    const artifactLimit = await this.ctx.maxArtifactBytes()
    for (const p of prepared) {
      // the body alone is already too large: refused before any lock is taken
      const bytes = Buffer.byteLength(p.bodyJson)
      if (bytes > limit) throw new RecordTooLargeError(p.draft.kind, p.id, bytes, limit)
      for (const a of p.artifacts ?? []) if (a.ref.size > artifactLimit) throw new ArtifactTooLargeError(a.ref.name, a.ref.size, artifactLimit)
    }
    const inBatch = new Map<string, string>()
    for (const p of prepared) {
      const have = inBatch.get(p.id)
      if (have !== undefined && have !== p.digest) throw new ConflictError(p.id, have, p.digest, lane)
      inBatch.set(p.id, p.digest)
    }
    const lock = await RefLock.acquire(this.ctx.commonDir, ref, {timeoutMs: opts.lockTimeoutMs})
    try {
      const own = lock.old ? await this.ownTip(ref, lock.old) : undefined
      // other lanes whose tip cannot be read are left out: their records are out of every
      // view until they are repaired (the ledger says so), and must not stop this lane
      const tips = new Map<string, {tree: string; lamport: number}>()
      const all = await this.ctx.laneTips()
      all.set(ref, lock.old)
      for (const [r, tip] of [...all].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
        const info = r === ref ? own : tip ? await this.commitInfo(tip).catch(() => undefined) : undefined
        // (another lane's clock above CLOCK_MAX counts for nothing: any lane could leave the
        // others no room to count on; this lane's own clock always goes on from its tip, or two
        // of its records in a row would share a lamport — a retire and the reopen after it)
        if (info) tips.set(r, info.lamport <= (r === ref ? OWN_CLOCK_MAX : CLOCK_MAX) ? info : {...info, lamport: 0})
      }
      // (within a namespace, only its lanes' records count as recorded: AppendOptions.within)
      const counted = opts.within ? new Map([...tips].filter(([r]) => r === ref || opts.within!(parseLaneRef(r)?.lane ?? ''))) : tips
      const existing = await this.findExisting(prepared.map(p => ({id: p.id, kind: p.draft.kind})), counted)
      for (const p of prepared) {
        const ex = existing.get(p.id)
        if (ex && ex.digest !== p.digest) throw new ConflictError(p.id, ex.digest, p.digest, ex.lane)
      }
      let lamport = 0
      for (const t of tips.values()) lamport = Math.max(lamport, t.lamport)
      if (lamport + prepared.length > Number.MAX_SAFE_INTEGER) throw new CorruptObjectError('lane', `${ref}: its Lamport clock is at ${lamport}, with no room left to count on (a record's lamport is at most 2^53 - 1); nothing was appended`, {ref})
      const createdAt = utcTimestamp((opts.now ?? (() => new Date()))())
      const firstSeen = new Set<string>()
      const fresh = prepared.filter(p => !existing.has(p.id) && !firstSeen.has(p.id) && firstSeen.add(p.id))
      const sealed = fresh.map(p => ({p, record: seal(p, {lane, lamport: ++lamport, createdAt})}))
      // (nothing is written yet: a check of the caller's that throws leaves the lane as it was)
      if (sealed.length && opts.beforeWrite) await opts.beforeWrite(sealed.map(x => x.record))
      const written = new LastCommits()
      const sink = remembering(fresh.length >= this.ctx.packThreshold ? new PackSink(this.ctx.commonDir) : new LooseSink(this.ctx.commonDir), written)
      const tree = new MutableTree(this.ctx.reader, own?.tree)
      const who = await this.signature(lane, createdAt)
      let parent = lock.old
      const made = new Map<string, AppendResult>()
      for (const {p, record} of sealed) {
        const bytes = encodeRecord(record)
        if (bytes.length > limit) throw new RecordTooLargeError(record.kind, record.id, bytes.length, limit)
        // artifacts go in with their record, in the same commit, at their content's path
        for (const a of p.artifacts ?? []) await tree.insert(a.ref.path, sink.put('blob', Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength)))
        const blob = sink.put('blob', bytes)
        await tree.insert(recordPath(record.kind, record.id), blob)
        const root = tree.write(sink, ref)
        const commit: CommitData = {tree: root, parents: parent ? [parent] : [], author: who, committer: who, message: recordMessage(record)}
        const signer = SIGNED_KINDS.has(record.kind) ? await this.ctx.signer() : undefined
        if (signer) commit.gpgsig = await signer(encodeCommit(commit))
        parent = sink.put('commit', encodeCommit(commit))
        this.commitTree.set(parent, {tree: root, lamport: record.lamport})
        made.set(p.id, {id: p.id, kind: record.kind, digest: p.digest, status: 'created', lane, ref, lamport: record.lamport, commit: parent})
      }
      try {
        if (fresh.length) {
          await sink.flush()
          await lock.commit(parent!)
          this.ctx.reader.remember?.(written.objects())
        } else await lock.release()
      } finally {
        sink.done()
      }
      return prepared.map(p => {
        const ex = existing.get(p.id)
        if (ex) return {id: p.id, kind: p.draft.kind, digest: p.digest, status: 'exists', lane: ex.lane, ref: ex.ref, lamport: ex.lamport, commit: ex.commit}
        return made.get(p.id)!
      })
    } catch (e) {
      await lock.release()
      throw e
    }
  }

  /** The tip of the lane being appended to: it must be a readable commit, or the append would drop its history. */
  private async ownTip(ref: string, tip: string): Promise<{tree: string; lamport: number}> {
    try {
      return await this.commitInfo(tip)
    } catch (e) {
      throw new CorruptObjectError('lane', `${ref} points at ${tip}, which cannot be read as a commit (${(e as Error).message}); nothing was appended`, {ref, tip})
    }
  }

  /**
   * A tip's tree and the Lamport clock it carries on: the Exp-Lamport of the newest record
   * commit at or below it (a commit that is not a record, a merge someone pushed, is passed
   * over: up to CLOCK_WALK of them). A lamport that is not a safe whole number from 1 (`NaN`,
   * `1e400`, 2^53, from anyone who may push a lane) counts for nothing; one above CLOCK_MAX
   * counts only on the lane's own tip (appendBatch): the clock of every lane would otherwise
   * stop (a record's lamport must be a safe integer) or freeze.
   */
  private async commitInfo(oid: string): Promise<{tree: string; lamport: number}> {
    let hit = this.commitTree.get(oid)
    if (!hit) {
      const o = await this.ctx.reader.read(oid, OBJECT_MAX)
      if (o.type !== 'commit') throw new CorruptObjectError('commit', `${oid} is a ${o.type}, not a commit`, {oid})
      const c = parseCommit(o.data, oid)
      let lamport = parseTrailers(c.message).lamport
      let parent = c.parents[0]
      for (let n = 0; lamport === undefined && parent && n < CLOCK_WALK; n++) {
        const p = await this.ctx.reader.read(parent, OBJECT_MAX).then(
          r => (r.type === 'commit' ? parseCommit(r.data, parent) : undefined),
          () => undefined,
        )
        if (!p) break
        lamport = parseTrailers(p.message).lamport
        parent = p.parents[0]
      }
      hit = {tree: c.tree, lamport: lamport !== undefined && Number.isSafeInteger(lamport) && lamport >= 1 ? lamport : 0}
      this.commitTree.set(oid, hit)
    }
    return hit
  }

  /** Records already present on any lane, by id: looked up by canonical path in each lane's tip tree. */
  private async findExisting(items: {id: string; kind: Kind}[], tips: Map<string, {tree: string}>): Promise<Map<string, Existing>> {
    const out = new Map<string, Existing>()
    for (const [ref, {tree}] of tips) {
      const want = items.filter(it => !out.has(it.id))
      if (!want.length) break
      const found = await lookupPaths(this.ctx.reader, tree, want.map(it => recordPath(it.kind, it.id)))
      if (!found.size) continue
      const hits = want.filter(it => found.has(recordPath(it.kind, it.id)))
      const blobs = await this.ctx.reader.readMany(hits.map(it => found.get(recordPath(it.kind, it.id))!.oid))
      hits.forEach((it, k) => {
        const where = `${ref}:${recordPath(it.kind, it.id)}`
        const data = blobs[k]!
        if (data instanceof Error) throw new CorruptObjectError('object', `${where}: ${data.message}`, {where})
        const lane = parseLaneRef(ref)!.lane
        // a file at the id's path that is not a record of that id (its id not derived from its
        // bytes, another body under a digest it claims) is no record there, as every read has it:
        // taken as the id's record, a squat under an id anyone can compute (a run's manifest)
        // refused every later append of the real record, or passed it off as written
        const checked = checkRecordBytes(data, {id: it.id, kind: it.kind, lane})
        if (!checked.ok) return
        out.set(it.id, {digest: checked.ok.record.digest, lane, ref, lamport: checked.ok.record.lamport})
      })
    }
    return out
  }

  private async signature(lane: string, createdAt: string): Promise<Signature> {
    const time = Math.floor(Date.parse(createdAt) / 1000)
    const name = process.env.GIT_AUTHOR_NAME ?? (await this.ctx.config('user.name')) ?? 'exp'
    const email = process.env.GIT_AUTHOR_EMAIL ?? (await this.ctx.config('user.email')) ?? `${lane}@exp.invalid`
    return {name, email, time}
  }
}

/** `sink`, with the trees and commits put into it kept in `written` (blobs are read back in bulk, through cat-file) */
function remembering(sink: ObjectSink, written: LastCommits): ObjectSink {
  return {
    put(type, data, deltaKey) {
      const oid = sink.put(type, data, deltaKey)
      if (type !== 'blob') written.add({oid, type, data})
      return oid
    },
    flush: () => sink.flush(),
    done: () => sink.done(),
    get count() {
      return sink.count
    },
  }
}

/**
 * The trees and commits of the last NEAR_WRITTEN commits an append wrote (each commit's trees
 * are put before it): what a near read of the lane takes back (lane-read.ts); the rest of a
 * batch of thousands is not held.
 */
class LastCommits {
  private readonly done: WrittenObject[][] = []
  private open: WrittenObject[] = []

  add(o: WrittenObject): void {
    this.open.push(o)
    if (o.type !== 'commit') return
    this.done.push(this.open)
    this.open = []
    if (this.done.length > NEAR_WRITTEN) this.done.shift()
  }

  objects(): WrittenObject[] {
    return this.done.flat()
  }
}
