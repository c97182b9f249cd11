import {canonical} from '../../world/digest.js'
import {getPath} from '../../world/state.js'
import type {Matcher, Where, WhereValue} from './types.js'

/** The matcher semantics, shared by invariants, `where` filters and constraint arguments. */

export const MATCH_OPS = ['equals', 'not_equals', 'one_of', 'exists', 'contains', 'not_contains', 'min', 'max'] as const

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  // scalars are equal only when identical (the hot path of every `where`)
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  return canonical(a) === canonical(b)
}

/** `expected` object keys must match inside `actual`; other values must be equal. */
function partial(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object') return false
    return Object.entries(expected).every(([k, v]) => partial((actual as Record<string, unknown>)[k], v))
  }
  return deepEqual(actual, expected)
}

function contains(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'string') return typeof expected === 'string' && actual.toLowerCase().includes(expected.toLowerCase())
  if (Array.isArray(actual)) return actual.some(x => partial(x, expected))
  return false
}

function size(v: unknown): number | undefined {
  if (typeof v === 'number') return v
  if (typeof v === 'string' || Array.isArray(v)) return v.length
  return undefined
}

export function isMatcher(v: unknown): v is Matcher {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every(k => (MATCH_OPS as readonly string[]).includes(k))
}

export function matches(actual: unknown, m: Matcher): boolean {
  if ('equals' in m && !deepEqual(actual, m.equals)) return false
  if ('not_equals' in m && deepEqual(actual, m.not_equals)) return false
  if (m.one_of && !m.one_of.some(x => deepEqual(actual, x))) return false
  if (m.exists !== undefined && (actual !== undefined && actual !== null) !== m.exists) return false
  if ('contains' in m && !contains(actual, m.contains)) return false
  if ('not_contains' in m && contains(actual, m.not_contains)) return false
  if (m.min !== undefined && !((size(actual) ?? -Infinity) >= m.min)) return false
  if (m.max !== undefined && !((size(actual) ?? Infinity) <= m.max)) return false
  return true
}

export function matchValue(actual: unknown, w: WhereValue): boolean {
  return isMatcher(w) ? matches(actual, w) : deepEqual(actual, w)
}

export function matchesWhere(record: unknown, where: Where | undefined): boolean {
  if (!where) return true
  for (const [k, w] of Object.entries(where)) if (!matchValue(getPath(record, k), w)) return false
  return true
}

/** The matcher part of an object that may carry other keys (an invariant). */
export function matcherOf(o: object): Matcher {
  const m: Record<string, unknown> = {}
  for (const k of MATCH_OPS) if (k in o) m[k] = (o as Record<string, unknown>)[k]
  return m as Matcher
}

/** A short human rendering of a matcher, for messages. */
export function describe(m: Matcher): string {
  return Object.entries(m).map(([k, v]) => `${k.replace('_', ' ')} ${JSON.stringify(v)}`).join(' and ')
}
