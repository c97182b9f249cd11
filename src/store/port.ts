import type {ExpRecord, RecordDraft, Kind} from '../records/index.js'
import type {Ledger, LedgerEntry} from './ledger.js'
import type {Problem} from './problems.js'

export interface AppendOptions {
  lane: string
  /** write to refs/research/private/<lane> (never pushed) instead of the public lane */
  private?: boolean
  /** the clock, given from outside (tests and replays fix it; the system clock when absent); created_at of the new records */
  now?: () => Date
  lockTimeoutMs?: number
  /**
   * The lanes whose records count as recorded (default: every lane). A record only lanes outside
   * it hold (the same id, whatever its content) is written on this lane too: a namespace's view
   * holds its own lanes only (src/store/namespace.ts), and a copy another lane held first, with
   * the same bytes or not, kept the namespace from ever recording it.
   */
  within?: (lane: string) => boolean
  /**
   * Called under the lane's lock with each record the append creates, sealed as it will be
   * written (its Lamport clock, so its place in ledger order, among it), before anything is
   * written: throwing from it writes nothing. For a check that depends on where the ledger
   * orders the new record (`exp retire`, `exp reopen`: src/lifecycle/retire.ts).
   */
  beforeWrite?: (records: readonly ExpRecord[]) => void | Promise<void>
}

export interface AppendResult {
  id: string
  kind: Kind
  digest: string
  /** created: a new commit; exists: the same id with the same digest was already recorded (a no-op) */
  status: 'created' | 'exists'
  lane: string
  ref: string
  lamport: number
  commit?: string
}

export interface LaneInfo {
  lane: string
  ref: string
  private: boolean
  tip: string
  records: number
  lastLamport: number
  /** why the lane cannot be read (its records are then out of every view), when it cannot */
  problem?: string
}

/** A problem met while reading lanes (records skipped, a lane that cannot be read): see problems.ts. */
export interface ReadProblem extends Problem {
  ref: string
}

export interface LedgerOptions {
  /** include refs/research/private/* lanes (default true: they are this clone's own) */
  includePrivate?: boolean
}

/**
 * The one storage port. The git adapter keeps each record as a commit on a lane ref; the
 * in-memory adapter keeps arrays. Both pass test/store/contract.ts.
 */
export interface RecordStore {
  append<K extends Kind>(draft: RecordDraft<K>, opts: AppendOptions): Promise<AppendResult>
  /** all-or-nothing: validated first, then one lock, one ref update */
  appendBatch(drafts: readonly RecordDraft[], opts: AppendOptions): Promise<AppendResult[]>
  ledger(opts?: LedgerOptions): Promise<Ledger>
  lanes(): Promise<LaneInfo[]>
  /** The content of the artifact `name` of record `id`, checked against the digest the record names. */
  readArtifact(id: string, name: string): Promise<Buffer>
  /**
   * The commit that added a ledger entry's record to its lane, checked against history (an
   * entry read from a cache names it by what the cache says): for views that show it.
   */
  holdingCommit(e: LedgerEntry): Promise<string>
  /**
   * Run `fn` while holding the repository-local lock `name`: every process on this
   * repository (not other clones) that asks for the same name waits its turn. For the few
   * read-decide-write steps whose decision must see every write that could be ordered
   * before its own (claims). Appends never need it.
   */
  exclusive<T>(name: string, fn: () => Promise<T>, opts?: {timeoutMs?: number}): Promise<T>
  close(): Promise<void>
}

export type {ExpRecord}
