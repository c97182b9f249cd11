import {hasFacts, recordFacts, type ExpRecord, type Facts, type FactsByKind, type FactKind, type Kind} from '../records/index.js'
import type {ReadProblem} from './port.js'

/** What the ledger knows of a record without reading its body. */
export interface LedgerEntry {
  id: string
  kind: Kind
  digest: string
  lane: string
  ref: string
  private: boolean
  lamport: number
  commit: string
  cites: readonly string[]
  /** encodeFacts() of the record, when the adapter indexed it; Ledger.facts() reads it */
  facts?: string
}

export interface LedgerFilter {
  kinds?: readonly Kind[]
  lanes?: readonly string[]
  /** only records citing this id */
  cites?: string
  /** only records with lamport > since */
  since?: number
  includePrivate?: boolean
}

/** Ledger order: (lamport, lane, id), never wall time; ref breaks the tie of a lane's public and private halves. */
export function compareEntries(a: LedgerEntry, b: LedgerEntry): number {
  return a.lamport - b.lamport || cmp(a.lane, b.lane) || cmp(a.id, b.id) || cmp(a.ref, b.ref)
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * The ledger: every record across lanes in ledger order, deduplicated by id (the first in
 * ledger order wins; later copies are listed in `duplicates`). Bodies load on demand.
 */
export class Ledger {
  readonly entries: readonly LedgerEntry[]
  readonly duplicates: readonly LedgerEntry[]
  private byId = new Map<string, LedgerEntry>()
  private reverse: Map<string, LedgerEntry[]> | undefined

  constructor(
    entries: LedgerEntry[],
    private readonly loader: (e: LedgerEntry) => ExpRecord,
    readonly problems: readonly ReadProblem[] = [],
  ) {
    entries.sort(compareEntries)
    const unique: LedgerEntry[] = []
    const dups: LedgerEntry[] = []
    for (const e of entries) {
      if (this.byId.has(e.id)) dups.push(e)
      else {
        this.byId.set(e.id, e)
        unique.push(e)
      }
    }
    this.entries = unique
    this.duplicates = dups
  }

  get size(): number {
    return this.entries.length
  }

  get maxLamport(): number {
    return this.entries.length ? this.entries[this.entries.length - 1]!.lamport : 0
  }

  get(id: string): LedgerEntry | undefined {
    return this.byId.get(id)
  }

  has(id: string): boolean {
    return this.byId.has(id)
  }

  /** The record body of an entry (or id). */
  load<K extends Kind = Kind>(e: LedgerEntry | string): ExpRecord<K> {
    const entry = typeof e === 'string' ? this.byId.get(e) : e
    if (!entry) throw new Error(`no record ${String(e)}`)
    return this.loader(entry) as ExpRecord<K>
  }

  select(f: LedgerFilter = {}): LedgerEntry[] {
    const kinds = f.kinds?.length ? new Set(f.kinds) : undefined
    const lanes = f.lanes?.length ? new Set(f.lanes) : undefined
    const src = f.cites ? this.citedBy(f.cites) : this.entries
    return src.filter(e =>
      (!kinds || kinds.has(e.kind)) &&
      (!lanes || lanes.has(e.lane)) &&
      (f.since === undefined || e.lamport > f.since) &&
      (f.includePrivate !== false || !e.private))
  }

  /**
   * The indexed facts of a record (records/facts.ts) without loading its body; from the
   * body when the index has none. Undefined for kinds without facts.
   */
  facts<K extends FactKind>(e: LedgerEntry & {kind: K}): FactsByKind[K]
  facts(e: LedgerEntry): Facts | undefined
  facts(e: LedgerEntry): Facts | undefined {
    // not memoized: a projection reads each entry's facts once, and a memo of 70,000
    // objects costs more (map upkeep, GC) than parsing them again would
    if (!hasFacts(e.kind)) return undefined
    return e.facts ? (JSON.parse(e.facts) as Facts) : recordFacts(this.loader(e))
  }

  /** Loaded records matching a filter, in ledger order. */
  records<K extends Kind>(f: LedgerFilter & {kinds: readonly K[]}): ExpRecord<K>[]
  records(f?: LedgerFilter): ExpRecord[]
  records(f: LedgerFilter = {}): ExpRecord[] {
    return this.select(f).map(e => this.loader(e))
  }

  /** Entries that cite `id`, in ledger order. */
  citedBy(id: string): LedgerEntry[] {
    if (!this.reverse) {
      this.reverse = new Map()
      for (const e of this.entries) for (const c of e.cites) {
        let list = this.reverse.get(c)
        if (!list) this.reverse.set(c, (list = []))
        list.push(e)
      }
    }
    return this.reverse.get(id) ?? []
  }
}
