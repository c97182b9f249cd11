import {getPath} from '../../world/state.js'
import type {WorldState} from '../../world/types.js'
import {describe, matcherOf, matches, matchesWhere} from './match.js'
import type {CountInvariant, DiffEntry, Invariant, InvariantResult, OrderInvariant, PathInvariant, TimeRef} from './types.js'

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

/** The time a reference points at (an ISO string), or undefined when it has not happened. */
function timeOf(ref: TimeRef, state: WorldState): {at?: string; label: string} {
  if ('path' in ref) {
    const v = getPath(state, ref.path)
    return {at: typeof v === 'string' ? v : undefined, label: ref.path}
  }
  const times = (entriesAt(state, ref.collection) ?? [])
    .filter(([, r]) => matchesWhere(r, ref.where))
    .map(([, r]) => getPath(r, ref.field))
    .filter((v): v is string => typeof v === 'string')
    .sort()
  const at = ref.pick === 'latest' ? times[times.length - 1] : times[0]
  return {at, label: `${ref.pick ?? 'earliest'} ${ref.field} of ${ref.collection}${ref.where ? ` where ${JSON.stringify(ref.where)}` : ''}`}
}

function checkOrder(inv: OrderInvariant, state: WorldState): InvariantResult {
  const a = timeOf(inv.order.first, state)
  const b = timeOf(inv.order.then, state)
  const what = `${a.label} before ${b.label}`
  if (a.at !== undefined && b.at !== undefined && a.at < b.at) return {id: inv.id, passed: true, message: `${what}: ${a.at} < ${b.at}`}
  const why = a.at === undefined ? `${a.label} never happened` : b.at === undefined ? `${b.label} never happened` : `${a.at} is not before ${b.at}`
  return {id: inv.id, passed: false, message: `${what}: ${why}`, diff: [{path: b.label, expected: `after ${a.at ?? a.label}`, actual: b.at ?? null}]}
}

/** Inner invariants of exactly_one_of / none_of: which held. */
function inner(list: readonly Invariant[], state: WorldState): {held: string[]; results: InvariantResult[]} {
  const results = list.map(i => checkInvariant(i, state))
  return {held: results.filter(r => r.passed).map(r => r.id), results}
}

export function checkInvariant(inv: Invariant, state: WorldState): InvariantResult {
  if ('order' in inv) return checkOrder(inv, state)
  if ('exactly_one_of' in inv) {
    const {held, results} = inner(inv.exactly_one_of, state)
    const ids = inv.exactly_one_of.map(i => i.id).join(', ')
    if (held.length === 1) return {id: inv.id, passed: true, message: `exactly one of ${ids} holds: ${held[0]}`}
    return {id: inv.id, passed: false, message: `exactly one of ${ids} should hold, but ${held.length ? held.join(' and ') : 'none'} ${held.length === 1 ? 'does' : 'do'}`, diff: results.map(r => ({path: r.id, expected: 'exactly one holds', actual: r.message}))}
  }
  if ('none_of' in inv) {
    const {held, results} = inner(inv.none_of, state)
    if (!held.length) return {id: inv.id, passed: true, message: `none of ${inv.none_of.map(i => i.id).join(', ')} holds`}
    return {id: inv.id, passed: false, message: `none of them should hold, but ${held.join(' and ')} ${held.length === 1 ? 'does' : 'do'}`, diff: results.filter(r => r.passed).map(r => ({path: r.id, expected: 'does not hold', actual: r.message}))}
  }
  return 'collection' in inv ? checkCount(inv, state) : checkPath(inv, state)
}
