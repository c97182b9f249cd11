import {laneKey, recordId, type Kind} from '../records/index.js'
import type {Ledger, LedgerEntry} from './ledger.js'

/**
 * A lane's own keyed records. A keyed record's id names no lane, and many keys are guessable
 * (a contract's baseline runs, an evolve run's notes): another lane can hold the id of a record
 * this lane will write. A lane then looks its records up on itself only, and writes them under
 * a key of its own (ownKeys: salted with the lane, then numbered) where another lane holds the id.
 */

/**
 * Whether `lane` holds the record `e` stands for: `e` is on it, or a copy with the same bytes
 * is (two clones that wrote the same record alike and synced: the ledger shows one copy).
 * Its public half only, unless `withPrivate` (a held-out run's episodes are on the private one).
 */
export function onLane(ledger: Ledger, e: LedgerEntry, lane: string, withPrivate = false): boolean {
  const mine = (x: LedgerEntry) => x.lane === lane && (withPrivate || !x.private)
  return mine(e) || ledger.copies(e.id).some(d => d.digest === e.digest && mine(d))
}

/**
 * Every copy of an id with bytes of its own, the one every view shows first (one per digest):
 * another lane can write other bytes under any id, first in ledger order, so a reader that must
 * not take the shown copy on trust looks at each (the miner, run reuse).
 */
export function everyCopy(ledger: Ledger, id: string): LedgerEntry[] {
  const shown = ledger.get(id)
  if (!shown) return []
  const copies = ledger.copies(id)
  if (!copies.length) return [shown]
  const seen = new Set<string>()
  return [shown, ...copies].filter(c => !seen.has(c.digest) && seen.add(c.digest))
}

/**
 * The copy of `id` a record `by` cites: the one on `by`'s own lane (its own half first), else
 * the one every view shows. With `digest` (a citing record that pins the bytes it cites: a
 * verification its trace), a copy with those bytes first, on `by`'s lane or any. An id held
 * once is that record, whatever lane holds it. Another lane that writes under the key of one
 * of this lane's records (at a lower Lamport clock, or under a lane name that sorts first)
 * takes the id in ledger order: looked up by `ledger.get`, its copy replaced the record this
 * lane's evaluation cites, and this lane's evidence stopped standing in every trust check.
 */
export function citedEntry(ledger: Ledger, id: string, by: Pick<LedgerEntry, 'lane' | 'private'>, digest?: string): LedgerEntry | undefined {
  const shown = ledger.get(id)
  const copies = shown ? ledger.copies(id) : []
  if (!copies.length) return shown
  const all = [shown!, ...copies]
  const own = (ok: (x: LedgerEntry) => boolean) => all.find(x => ok(x) && x.lane === by.lane && x.private === by.private) ?? all.find(x => ok(x) && x.lane === by.lane)
  if (digest !== undefined) {
    const pinned = own(x => x.digest === digest) ?? all.find(x => x.digest === digest)
    if (pinned) return pinned
  }
  return own(() => true) ?? shown
}

/**
 * The keys a record of `lane` under `key` may have, in the order a writer tries them: the key,
 * the key salted with the lane (records/identity.ts, laneKey), then that one numbered
 * (`<key>@<lane>#2`, `#3`, ...). Each can be guessed, so another lane can hold any number of
 * them: a writer takes the first that no other lane holds, and a reader looks as far.
 */
export function* ownKeys(key: string, lane: string): Generator<string> {
  yield key
  const salted = laneKey(key, lane)
  yield salted
  for (let n = 2; ; n++) yield `${salted}#${n}`
}

/** The key a key of `lane`'s (ownKeys) was made from. */
export function baseKey(key: string, lane: string): string {
  const at = key.lastIndexOf(laneKey('', lane))
  const rest = at < 0 ? undefined : key.slice(at + laneKey('', lane).length)
  return rest !== undefined && (rest === '' || /^#[1-9]\d*$/.test(rest)) ? key.slice(0, at) : key
}

/** The record of `lane` under `key` (or a key of its own made from it: ownKeys), if there is one. */
export function ownEntry(ledger: Ledger, kind: Kind, key: string, lane: string): LedgerEntry | undefined {
  let n = 0
  for (const k of ownKeys(key, lane)) {
    const e = ledger.get(recordId(kind, '', k))
    if (e && onLane(ledger, e, lane)) return e
    // the salted keys are written in turn: past the key itself, a free one ends them
    if (!e && n > 0) return undefined
    n++
  }
  return undefined
}

/** The key `lane` writes a record of `key` under: the first of ownKeys whose id no other lane's record holds. */
export function ownKey(ledger: Ledger, kind: Kind, key: string, lane: string): string {
  for (const k of ownKeys(key, lane)) {
    const e = ledger.get(recordId(kind, '', k))
    if (!e || onLane(ledger, e, lane)) return k
  }
  return key
}
