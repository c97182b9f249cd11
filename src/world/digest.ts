import {sha256Hex} from '../records/digest.js'
import {COLLECTIONS, type CollectionName, type WorldState} from './types.js'

/**
 * The canonical state digest, a three-level Merkle digest so that an action re-hashes
 * only what it replaced:
 *
 *   record      = digestOf(record)
 *   collection  = digestOf({id: record digest, …})        (settings and seq: digestOf(value))
 *   state       = digestOf({collection: collection digest, …})
 *
 * Every level is `sha256:` of canonical JSON (src/records/canonical.ts), produced here by
 * `canonical()` below — the same bytes, written without the per-value path bookkeeping
 * that makes the general writer slow (test/world/digest.test.ts proves they agree).
 * Records and collections are immutable, so digests are cached by object identity and a
 * fixture's records are hashed once per process, not once per episode.
 */
const cache = new WeakMap<object, string>()

/** Canonical JSON of plain JSON data (what the world holds): sorted keys, no whitespace. */
export function canonical(v: unknown): string {
  if (v === null) return 'null'
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v)
    case 'number':
      return Object.is(v, -0) ? '0' : JSON.stringify(v)
    case 'boolean':
      return v ? 'true' : 'false'
    case 'object': {
      if (Array.isArray(v)) {
        let s = '['
        for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + canonical(v[i])
        return s + ']'
      }
      const o = v as Record<string, unknown>
      const keys = Object.keys(o).sort()
      let s = '{'
      let first = true
      for (const k of keys) {
        if (o[k] === undefined) continue
        s += (first ? '' : ',') + JSON.stringify(k) + ':' + canonical(o[k])
        first = false
      }
      return s + '}'
    }
    default:
      throw new TypeError(`world state holds a ${typeof v}, which has no canonical JSON`)
  }
}

function digestValue(v: unknown): string {
  if (v === null || typeof v !== 'object') return `sha256:${sha256Hex(canonical(v))}`
  let d = cache.get(v)
  if (d === undefined) {
    d = `sha256:${sha256Hex(canonical(v))}`
    cache.set(v, d)
  }
  return d
}

/** Digest of a map whose values are replaced by their own digests (one Merkle level). */
function digestOfDigests(o: Record<string, unknown>, leaf: (v: unknown) => string): string {
  let d = cache.get(o)
  if (d === undefined) {
    const keys = Object.keys(o).sort()
    let s = '{'
    for (let i = 0; i < keys.length; i++) s += (i ? ',' : '') + JSON.stringify(keys[i]) + ':"' + leaf(o[keys[i]!]) + '"'
    d = `sha256:${sha256Hex(s + '}')}`
    cache.set(o, d)
  }
  return d
}

const WHOLE: ReadonlySet<CollectionName> = new Set(['settings', 'seq'])

export function collectionDigest(state: WorldState, c: CollectionName): string {
  const value = state[c] as unknown as Record<string, unknown>
  return WHOLE.has(c) ? digestValue(value) : digestOfDigests(value, digestValue)
}

export function collectionDigests(state: WorldState): Record<string, string> {
  const out: Record<string, string> = {}
  for (const c of COLLECTIONS) out[c] = collectionDigest(state, c)
  return out
}

const SORTED: readonly CollectionName[] = [...COLLECTIONS].sort()

export function stateDigest(state: WorldState): string {
  let d = cache.get(state)
  if (d === undefined) {
    let s = '{'
    for (let i = 0; i < SORTED.length; i++) s += (i ? ',' : '') + JSON.stringify(SORTED[i]) + ':"' + collectionDigest(state, SORTED[i]!) + '"'
    d = `sha256:${sha256Hex(s + '}')}`
    cache.set(state, d)
  }
  return d
}
