import {randomBytes} from 'node:crypto'
import {laneKey, recordId, type Kind} from '../records/index.js'
import type {Ledger, LedgerEntry} from './ledger.js'

/**
 * A lane's own keyed records. A keyed record's id names no lane, and many keys are guessable
 * (a contract's baseline runs, an evolve run's notes): another lane can hold the id of a record
 * this lane will write. A lane then looks its records up on itself only, and writes them under
 * the key salted with the lane (records/identity.ts, laneKey) where another lane holds the id.
 */

/**
 * Whether `lane` holds the record `e` stands for: `e` is on it, or a copy with the same bytes
 * is (two clones that wrote the same record alike and synced: the ledger shows one copy).
 * Its public half only, unless `withPrivate` (a held-out run's episodes are on the private one).
 */
export function onLane(ledger: Ledger, e: LedgerEntry, lane: string, withPrivate = false): boolean {
  const mine = (x: LedgerEntry) => x.lane === lane && (withPrivate || !x.private)
  return mine(e) || ledger.duplicates.some(d => d.id === e.id && d.digest === e.digest && mine(d))
}

/** The record of `lane` under `key` (or its lane-salted key), if there is one. */
export function ownEntry(ledger: Ledger, kind: Kind, key: string, lane: string): LedgerEntry | undefined {
  for (const k of [key, laneKey(key, lane)]) {
    const e = ledger.get(recordId(kind, '', k))
    if (e && onLane(ledger, e, lane)) return e
  }
  return undefined
}

/** The key `lane` writes a record of `key` under: the key, unless another lane's record holds its id. */
export function ownKey(ledger: Ledger, kind: Kind, key: string, lane: string): string {
  const e = ledger.get(recordId(kind, '', key))
  return !e || onLane(ledger, e, lane) ? key : laneKey(key, lane)
}

/**
 * The key `lane` writes a record of `key` under when no one reads the record by its key (a
 * retire note, a model's drafts, an ablation's summary): its own key (ownKey), and past a
 * lane-salted key another lane holds too, a random salt. Such a key can be guessed; another
 * lane that wrote a record under it would otherwise refuse this lane the record (E_CONFLICT) for good.
 */
export function freeKey(ledger: Ledger, kind: Kind, key: string, lane: string): string {
  const own = ownKey(ledger, kind, key, lane)
  const held = ledger.get(recordId(kind, '', own))
  return held && !onLane(ledger, held, lane) ? `${own}#${randomBytes(6).toString('hex')}` : own
}
