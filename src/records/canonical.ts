import {InvalidInputError} from '../errors/index.js'

/**
 * Canonical JSON: object keys sorted (UTF-16 code-unit order, as RFC 8785), no insignificant
 * whitespace, `undefined` object members dropped, -0 written as 0. Non-finite numbers,
 * `undefined` array items, functions, symbols and bigints are rejected: a record that
 * cannot round-trip through JSON has no stable digest.
 */
export function canonicalJson(value: unknown): string {
  try {
    return fast(value)
  } catch (e) {
    // a second walk finds where: only a refused value pays for tracking the path
    throw (e === REFUSED && refusal(value, '$')) || e
  }
}

const REFUSED = new Error('refused')

/** The serialization, without tracking where it is (records are serialized on every append). */
function fast(v: unknown): string {
  if (v === null) return 'null'
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v)
    case 'boolean':
      return v ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(v)) throw REFUSED
      return Object.is(v, -0) ? '0' : JSON.stringify(v)
    case 'object': {
      if (Array.isArray(v)) {
        let s = '['
        for (let i = 0; i < v.length; i++) {
          const x: unknown = v[i]
          if (x === undefined) throw REFUSED
          s += i ? `,${fast(x)}` : fast(x)
        }
        return `${s}]`
      }
      if (v instanceof Date) return JSON.stringify(v.toISOString())
      const obj = v as Record<string, unknown>
      const keys = Object.keys(obj).sort()
      let s = '{'
      for (const k of keys) {
        const x = obj[k]
        if (x === undefined) continue
        s += `${s.length > 1 ? ',' : ''}${JSON.stringify(k)}:${fast(x)}`
      }
      return `${s}}`
    }
    default:
      throw REFUSED
  }
}

/** Where the first value `fast` refuses is (same walk order), as the error naming it. */
function refusal(v: unknown, at: string): InvalidInputError | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : new InvalidInputError(`${at}: number ${v} is not finite`, {path: at})
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || v instanceof Date) return undefined
  if (typeof v !== 'object') return new InvalidInputError(`${at}: ${typeof v} cannot be stored in a record`, {path: at})
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i]
      const e = x === undefined ? new InvalidInputError(`${at}[${i}]: undefined is not allowed in arrays`, {path: `${at}[${i}]`}) : refusal(x, `${at}[${i}]`)
      if (e) return e
    }
    return undefined
  }
  const obj = v as Record<string, unknown>
  for (const k of Object.keys(obj).sort()) {
    const e = obj[k] === undefined ? undefined : refusal(obj[k], `${at}.${k}`)
    if (e) return e
  }
  return undefined
}

/** A deep copy through canonical JSON: drops undefined members, normalizes -0 and dates. */
export function normalizeJson<T>(value: T): T {
  return JSON.parse(canonicalJson(value)) as T
}

/** UTC timestamp with millisecond precision, the only time format records carry. */
export function utcTimestamp(d: Date): string {
  return d.toISOString()
}
