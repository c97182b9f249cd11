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
