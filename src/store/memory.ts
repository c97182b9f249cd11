import {encodeFacts, encodeRecord, prepare, seal, utcTimestamp, type ExpRecord, type RecordDraft, type Kind} from '../records/index.js'
import {ArtifactTooLargeError, ConflictError, NotFoundError, RecordTooLargeError} from '../errors/index.js'
import {laneRef, validateLane} from './lanes.js'
import {Ledger, type LedgerEntry} from './ledger.js'
import type {AppendOptions, AppendResult, LaneInfo, LedgerOptions, RecordStore} from './port.js'
import {refuseSecrets} from './secrets.js'

interface Stored {
  record: ExpRecord
  ref: string
  private: boolean
  commit: string
}

/** The in-memory adapter: same contract as the git store, for pure tests and projections. */
export interface MemoryStoreOptions {
  /** the largest record file accepted, in bytes (default 1 MiB, as the git adapter) */
  maxRecordBytes?: number
  /** the largest artifact accepted, in bytes (default 100 MiB) */
  maxArtifactBytes?: number
}

export class MemoryRecordStore implements RecordStore {
  constructor(private readonly opts: MemoryStoreOptions = {}) {}

  private lanesByRef = new Map<string, Stored[]>()
  private byId = new Map<string, Stored>()
  private seq = 0
  private artifacts = new Map<string, Buffer>()

  async append<K extends Kind>(draft: RecordDraft<K>, opts: AppendOptions): Promise<AppendResult> {
    return (await this.appendBatch([draft], opts))[0]!
  }

  async appendBatch(drafts: readonly RecordDraft[], opts: AppendOptions): Promise<AppendResult[]> {
    const lane = validateLane(opts.lane)
    const ref = laneRef(lane, opts.private)
    const prepared = drafts.map(d => prepare(d))
    refuseSecrets(prepared, undefined, lane)
    const limit = this.opts.maxRecordBytes ?? 1024 * 1024
    const artifactLimit = this.opts.maxArtifactBytes ?? 100 * 1024 * 1024
    for (const p of prepared) {
      for (const a of p.artifacts ?? []) if (a.ref.size > artifactLimit) throw new ArtifactTooLargeError(a.ref.name, a.ref.size, artifactLimit)
      // the record as the git adapter would write it (lane and clock give its final size)
      const bytes = encodeRecord(seal(p, {lane, lamport: this.maxLamport() + prepared.length, createdAt: utcTimestamp(new Date(0))})).length
      if (bytes > limit) throw new RecordTooLargeError(p.draft.kind, p.id, bytes, limit)
    }
    // (within a namespace, only its lanes' records count as recorded: AppendOptions.within)
    const held = (id: string): Stored | undefined => {
      const s = this.byId.get(id)
      if (!s || !opts.within || opts.within(s.record.lane)) return s
      for (const [r, list] of this.lanesByRef) if (opts.within(list[0]?.record.lane ?? r)) for (const x of list) if (x.record.id === id) return x
      return undefined
    }
    const fresh = new Map<string, string>()
    for (const p of prepared) {
      const have = held(p.id)?.record.digest ?? fresh.get(p.id)
      if (have !== undefined && have !== p.digest) throw new ConflictError(p.id, have, p.digest, lane)
      fresh.set(p.id, p.digest)
    }
    const now = utcTimestamp((opts.now ?? (() => new Date()))())
    let lamport = this.maxLamport()
    const results: AppendResult[] = []
    const list = this.lanesByRef.get(ref) ?? []
    const before = new Map(prepared.map(p => [p.id, held(p.id)]))
    // each record this append creates, sealed as it will be stored: the caller's check sees them
    // before anything is (AppendOptions.beforeWrite)
    const sealed = new Map<string, ExpRecord>()
    for (const p of prepared) if (!before.get(p.id) && !sealed.has(p.id)) sealed.set(p.id, seal(p, {lane, lamport: ++lamport, createdAt: now}))
    if (sealed.size && opts.beforeWrite) await opts.beforeWrite([...sealed.values()])
    const first = new Map<string, AppendResult>()
    for (const p of prepared) {
      const existing = before.get(p.id)
      if (existing) {
        results.push({id: p.id, kind: p.draft.kind, digest: p.digest, status: 'exists', lane: existing.record.lane, ref: existing.ref, lamport: existing.record.lamport, commit: existing.commit})
        continue
      }
      const again = first.get(p.id)
      if (again) {
        results.push(again)
        continue
      }
      const record = sealed.get(p.id)!
      for (const a of p.artifacts ?? []) this.artifacts.set(a.ref.digest, Buffer.from(a.content))
      const stored = {record, ref, private: !!opts.private, commit: (++this.seq).toString(16).padStart(40, '0')}
      list.push(stored)
      // (the first copy stays the one found by id, as the ledger shows the first in its order)
      if (!this.byId.has(p.id)) this.byId.set(p.id, stored)
      const res: AppendResult = {id: p.id, kind: p.draft.kind, digest: p.digest, status: 'created', lane, ref, lamport: record.lamport, commit: stored.commit}
      first.set(p.id, res)
      results.push(res)
    }
    this.lanesByRef.set(ref, list)
    return results
  }

  private maxLamport(): number {
    let m = 0
    for (const list of this.lanesByRef.values()) if (list.length) m = Math.max(m, list[list.length - 1]!.record.lamport)
    return m
  }

  async ledger(opts: LedgerOptions = {}): Promise<Ledger> {
    const entries: LedgerEntry[] = []
    // (by ref and id, not by entry object: a ledger may hand its loader a copy of an entry)
    const bodies = new Map<string, ExpRecord>()
    for (const list of this.lanesByRef.values()) {
      for (const s of list) {
        if (s.private && opts.includePrivate === false) continue
        const r = s.record
        const facts = encodeFacts(r)
        const e: LedgerEntry = {id: r.id, kind: r.kind, digest: r.digest, lane: r.lane, ref: s.ref, private: s.private, lamport: r.lamport, commit: s.commit, cites: r.cites, ...(facts ? {facts} : {})}
        bodies.set(`${s.ref}\0${r.id}`, r)
        entries.push(e)
      }
    }
    return new Ledger(entries, e => structuredClone(bodies.get(`${e.ref}\0${e.id}`)!))
  }

  async lanes(): Promise<LaneInfo[]> {
    return [...this.lanesByRef.entries()]
      .filter(([, list]) => list.length)
      .map(([ref, list]) => {
        const last = list[list.length - 1]!
        return {lane: last.record.lane, ref, private: last.private, tip: last.commit, records: list.length, lastLamport: last.record.lamport}
      })
      .sort((a, b) => (a.ref < b.ref ? -1 : 1))
  }

  async readArtifact(id: string, name: string): Promise<Buffer> {
    const s = this.byId.get(id)
    if (!s) throw new NotFoundError('record id', id)
    const ref = s.record.artifacts?.find(a => a.name === name)
    if (!ref) throw new NotFoundError('artifact', `${name} of ${id}`)
    return Buffer.from(this.artifacts.get(ref.digest)!)
  }

  async holdingCommit(e: LedgerEntry): Promise<string> {
    return e.commit
  }

  private held = new Map<string, Promise<unknown>>()

  async exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const before = this.held.get(name) ?? Promise.resolve()
    const run = before.then(fn, fn)
    this.held.set(name, run.catch(() => undefined))
    return run
  }

  async close(): Promise<void> {}
}
