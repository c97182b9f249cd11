import {getPath} from '../../world/state.js'
import type {WorldState} from '../../world/types.js'
import {describe, matcherOf, matches, matchesWhere} from './match.js'
import type {CountInvariant, DiffEntry, Invariant, InvariantResult, PathInvariant} from './types.js'

/** Records of a keyed collection (as [path, record]) or of a list at `path`. */
export function entriesAt(state: WorldState, path: string): [string, unknown][] | undefined {
  const v = getPath(state, path)
  if (Array.isArray(v)) return v.map((x, i) => [`${path}.${i}`, x])
  if (v !== null && typeof v === 'object') return Object.entries(v).map(([k, x]) => [`${path}.${k}`, x])
  return undefined
}

function checkPath(inv: PathInvariant, state: WorldState): InvariantResult {
  const m = matcherOf(inv)
  const actual = getPath(state, inv.path)
  if (matches(actual, m)) return {id: inv.id, passed: true, message: `${inv.path} ${describe(m)}`}
  const expected = 'equals' in m ? m.equals : m
  const shown = actual === undefined ? 'is absent' : `is ${JSON.stringify(actual)}`
  return {id: inv.id, passed: false, message: `${inv.path} should ${describe(m)}, but ${shown}`, diff: [{path: inv.path, expected, actual: actual ?? null}]}
}

function bounds(c: CountInvariant['count']): {min: number; max: number} {
  return typeof c === 'number' ? {min: c, max: c} : {min: c.min ?? 0, max: c.max ?? Infinity}
}

function checkCount(inv: CountInvariant, state: WorldState): InvariantResult {
  const all = entriesAt(state, inv.collection)
  const where = inv.where ? ` where ${JSON.stringify(inv.where)}` : ''
  if (!all) return {id: inv.id, passed: false, message: `${inv.collection} is not a collection in the final state`, diff: [{path: inv.collection, expected: 'a collection', actual: null}]}
  const hits = all.filter(([, r]) => matchesWhere(r, inv.where))
  const {min, max} = bounds(inv.count)
  const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : min === 0 ? `at most ${max}` : `${min} to ${max}`
  const label = `${inv.collection}${where}`
  if (hits.length >= min && hits.length <= max) return {id: inv.id, passed: true, message: `${label}: ${hits.length} record(s), expected ${want}`}
  const diff: DiffEntry[] = hits.length > max
    // too many: name each surplus record, it is what should not be there
    ? hits.map(([p, r]) => ({path: p, expected: null, actual: r}))
    : [{path: label, expected: `${want} matching record(s)`, actual: hits.length}]
  return {id: inv.id, passed: false, message: `${label}: found ${hits.length} record(s), expected ${want}`, diff}
}

export function checkInvariant(inv: Invariant, state: WorldState): InvariantResult {
  return 'collection' in inv ? checkCount(inv, state) : checkPath(inv, state)
}
