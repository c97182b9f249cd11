import {decodeRecord, encodeRecord, hasFacts, recordFacts, type ExpRecord, type Facts, type FactsByKind, type FactKind, type Kind} from '../records/index.js'
import type {ReadProblem} from './port.js'
import {problem} from './problems.js'
import {firstOfEachId, slotKey} from './first-ids.js'

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
  /** slotKey(id), when the entry can hash its id where it lies, without making the string */
  idKey?(): number
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

export type RecordLoader = (e: LedgerEntry) => ExpRecord
/** loads many bodies at once (an adapter can batch its reads); same order as asked */
export type ManyLoader = (es: readonly LedgerEntry[]) => ExpRecord[]
/** the record files (canonical JSON and a newline) of many entries, checked; same order as asked */
export type BytesLoader = (es: readonly LedgerEntry[], transient?: boolean) => Buffer[]

const NONE: readonly LedgerEntry[] = []

/** past this many entries in its own map, an extended ledger builds one flat map again */
const OVERLAY_MAX = 8192

/**
 * The ledger: every record across lanes in ledger order, deduplicated by id (the first in
 * ledger order wins; later copies are listed in `duplicates`). Bodies load on demand.
 * A ledger never changes once built; `Ledger.extend` makes a new one from an old one.
 */
export class Ledger {
  private _entries: readonly LedgerEntry[] = []
  private _duplicates: readonly LedgerEntry[] = []
  /**
   * ids of this ledger, over `base` (the map of the ledger this one extends, shared and never
   * written); built on the first lookup (`own`), not with the ledger: a whole-ledger listing
   * never looks an id up
   */
  private _own: Map<string, LedgerEntry> | undefined
  private base: ReadonlyMap<string, LedgerEntry> | undefined
  private reverse: Map<string, LedgerEntry[]> | undefined
  /** `_duplicates` by id, built on the first `copies` of a ledger that has any */
  private _copies: Map<string, LedgerEntry[]> | undefined
  /** bodies read ahead by `withPrefetched`, each handed to the next load of its entry */
  private ahead: Map<LedgerEntry, ExpRecord> | undefined

  constructor(
    entries: LedgerEntry[],
    private readonly loader: RecordLoader,
    private readonly readProblems: readonly ReadProblem[] = [],
    private readonly loadMany?: ManyLoader,
    private readonly loadBytes?: BytesLoader,
  ) {
    // one lane's entries, or a merge done before, are in order already: a check is cheaper than a sort
    let sorted = true
    for (let i = 1; i < entries.length && sorted; i++) sorted = compareEntries(entries[i - 1]!, entries[i]!) <= 0
    if (!sorted) entries.sort(compareEntries)
    const first = firstOfEachId(
      i => entries[i]!.id,
      entries.length,
      i => entries[i]!.idKey?.() ?? slotKey(entries[i]!.id),
    )
    const dups: LedgerEntry[] = []
    let unique = entries
    if (first.includes(0)) {
      unique = []
      entries.forEach((e, i) => (first[i] ? unique : dups).push(e))
    }
    this._entries = unique
    this._duplicates = dups
  }

  private get own(): Map<string, LedgerEntry> {
    if (!this._own) {
      this._own = new Map()
      for (const e of this._entries) this._own.set(e.id, e)
    }
    return this._own
  }

  /**
   * `prev` plus entries new since it was built (records appended to its lanes, or new
   * lanes): the same ledger as one built from all entries, made by a merge instead of a
   * sort of everything. Undefined when a new entry's id is already in `prev` (a duplicate
   * might then win its place): build it whole.
   */
  static extend(prev: Ledger, added: LedgerEntry[], problems: readonly ReadProblem[]): Ledger | undefined {
    added.sort(compareEntries)
    const seen = new Set<string>()
    for (const e of added) {
      if (seen.has(e.id) || prev.has(e.id)) return undefined
      seen.add(e.id)
    }
    const next = new Ledger([], prev.loader, problems, prev.loadMany, prev.loadBytes)
    const old = prev._entries
    // new records mostly sort after all old ones: copy the old prefix below the first new
    // entry in one go, then merge the rest
    let lo = 0
    let hi = old.length
    if (added.length) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (compareEntries(old[mid]!, added[0]!) <= 0) lo = mid + 1
        else hi = mid
      }
    } else lo = old.length
    const merged = old.slice(0, lo)
    let i = lo
    let j = 0
    while (i < old.length && j < added.length) merged.push(compareEntries(old[i]!, added[j]!) <= 0 ? old[i++]! : added[j++]!)
    while (i < old.length) merged.push(old[i++]!)
    while (j < added.length) merged.push(added[j++]!)
    next._entries = merged
    next._duplicates = prev._duplicates
    // (a flat map is built when first needed, from the merged entries)
    if ((prev.base ? prev.own.size : 0) + added.length <= OVERLAY_MAX) {
      next.base = prev.base ?? prev.own
      const own = (next._own = new Map(prev.base ? prev.own : undefined))
      for (const e of added) own.set(e.id, e)
    }
    return next
  }

  get entries(): readonly LedgerEntry[] {
    return this._entries
  }

  /**
   * A view of this ledger with only the entries `keep` accepts (bodies still load through the
   * same reader): a namespace of experiments that must not see each other's knowledge
   * (src/matrix/namespace.ts).
   */
  filter(keep: (e: LedgerEntry) => boolean): Ledger {
    return new Ledger(this._entries.filter(keep), this.loader, this.readProblems, this.loadMany, this.loadBytes)
  }

  get duplicates(): readonly LedgerEntry[] {
    return this._duplicates
  }

  /**
   * The other lanes' copies of `id` (and a lane's other half's), after the one `get` returns:
   * what a lane's own record is looked up in when another lane holds its id (store/own.ts,
   * citedEntry). Empty for an id held once; indexed on first use, from the duplicates only.
   */
  copies(id: string): readonly LedgerEntry[] {
    if (!this._duplicates.length) return NONE
    if (!this._copies) {
      this._copies = new Map()
      for (const d of this._duplicates) {
        const list = this._copies.get(d.id)
        if (list) list.push(d)
        else this._copies.set(d.id, [d])
      }
    }
    return this._copies.get(id) ?? NONE
  }

  private _problems: readonly ReadProblem[] | undefined

  /**
   * What the read found wrong, and each record whose id another lane's record holds with other
   * content: the views show the one first in ledger order, and say so (an id is content- or
   * key-derived, so a conflict is a lane writing under a key another lane wrote, or a forgery).
   * The trust checks look a record's cites up on its own lane first (store/own.ts, citedEntry).
   */
  get problems(): readonly ReadProblem[] {
    if (!this._problems) {
      const conflicts: ReadProblem[] = []
      for (const d of this._duplicates) {
        const shown = this.get(d.id)
        if (shown && shown.digest !== d.digest) conflicts.push({...problem('duplicate-id', `record ${d.id} here has other content than the one on ${shown.ref} (the same id, another digest): views of the id show that one, and the trust checks of this lane's records that cite it take this lane's own`, {commit: d.commit, id: d.id}), ref: d.ref})
      }
      this._problems = conflicts.length ? [...this.readProblems, ...conflicts] : this.readProblems
    }
    return this._problems
  }

  get size(): number {
    return this.entries.length
  }

  get maxLamport(): number {
    return this.entries.length ? this.entries[this.entries.length - 1]!.lamport : 0
  }

  get(id: string): LedgerEntry | undefined {
    return this.own.get(id) ?? this.base?.get(id)
  }

  has(id: string): boolean {
    return this.own.has(id) || !!this.base?.has(id)
  }

  /** The record body of an entry (or id). */
  load<K extends Kind = Kind>(e: LedgerEntry | string): ExpRecord<K> {
    const entry = typeof e === 'string' ? this.get(e) : e
    if (!entry) throw new Error(`no record ${String(e)}`)
    const ahead = this.ahead?.get(entry)
    if (ahead) {
      this.ahead!.delete(entry)
      return ahead as ExpRecord<K>
    }
    return this.loader(entry) as ExpRecord<K>
  }

  /**
   * Run `fn` with the bodies of `es` read ahead in one batched read: a load of one of them
   * inside `fn` takes its body from it instead of reading it alone. Each body is handed out
   * once (a second load reads it again, and gets a body of its own, as loads always do); what
   * `fn` did not load is dropped when it returns. For a pass that loads records one at a
   * time over many entries (the trust checks of every evaluation and decision): 36,000
   * single loads were ~0.3 s more than the same records read in batches. Read a few thousand
   * at a time: the bodies are held until `fn` returns.
   */
  withPrefetched<T>(es: readonly LedgerEntry[], fn: () => T): T {
    if (es.length < 2 || (!this.loadBytes && !this.loadMany)) return fn()
    const bodies = this.loadBytes ? this.loadBytes(es).map((b, k) => decodeRecord(b, es[k]!.id)) : this.loadMany!(es)
    const prev = this.ahead
    this.ahead = new Map(prev)
    es.forEach((e, k) => this.ahead!.set(e, bodies[k]!))
    try {
      return fn()
    } finally {
      this.ahead = prev
    }
  }

  /** The record bodies of many entries, read together (the adapter batches its reads); in the order asked. */
  loadAll<K extends Kind = Kind>(es: readonly LedgerEntry[]): ExpRecord<K>[] {
    return (this.loadMany ? this.loadMany(es) : es.map(e => this.loader(e))) as ExpRecord<K>[]
  }

  select(f: LedgerFilter = {}): LedgerEntry[] {
    const kinds = f.kinds?.length ? new Set(f.kinds) : undefined
    const lanes = f.lanes?.length ? new Set(f.lanes) : undefined
    const src = f.cites ? this.citedBy(f.cites) : this._entries
    // (no condition: a copy, not a call of the test for each of 100,000 entries)
    if (!kinds && !lanes && f.since === undefined && f.includePrivate !== false) return src.slice()
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
    return this.loadAll(this.select(f))
  }

  /**
   * The record files of entries (canonical JSON, one line each), as stored: what a streamed
   * `--json` writes without parsing and serializing every record again. With `transient`,
   * the buffers may be views of a read buffer the next transient call reuses (a stream that
   * writes each batch before it asks for the next).
   */
  recordBytes(es: readonly LedgerEntry[], opts: {transient?: boolean} = {}): Buffer[] {
    if (this.loadBytes) return this.loadBytes(es, opts.transient)
    const records = this.loadMany ? this.loadMany(es) : es.map(e => this.loader(e))
    return records.map(r => encodeRecord(r))
  }

  /**
   * The ledger of only the entries `keep` accepts (an `exp compare` arm's lanes): records of
   * other lanes are not in it at all, and a copy of a record another lane won the id of comes
   * back as the first of the kept copies.
   */
  restrict(keep: (e: LedgerEntry) => boolean): Ledger {
    const kept = [...this._entries, ...this._duplicates].filter(keep)
    return new Ledger(kept, this.loader, this.readProblems, this.loadMany, this.loadBytes)
  }

  /** Entries that cite `id`, in ledger order. */
  citedBy(id: string): LedgerEntry[] {
    if (!this.reverse) {
      this.reverse = new Map()
      for (const e of this._entries) for (const c of e.cites) {
        let list = this.reverse.get(c)
        if (!list) this.reverse.set(c, (list = []))
        list.push(e)
      }
    }
    return this.reverse.get(id) ?? []
  }
}
