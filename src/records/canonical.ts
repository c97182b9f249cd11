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
    // the slow walk knows where it is: it throws the same refusal naming the path
    if (e === REFUSED) return write(value, '$')
    throw e
  }
}

const REFUSED = new Error('refused')

/** The same serialization without tracking the path (records are serialized on every append). */
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

function write(v: unknown, at: string): string {
  if (v === null) return 'null'
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v)
    case 'boolean':
      return v ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(v)) throw new InvalidInputError(`${at}: number ${v} is not finite`, {path: at})
      return Object.is(v, -0) ? '0' : JSON.stringify(v)
    case 'object': {
      if (Array.isArray(v)) {
        const parts = v.map((x, i) => {
          if (x === undefined) throw new InvalidInputError(`${at}[${i}]: undefined is not allowed in arrays`, {path: `${at}[${i}]`})
          return write(x, `${at}[${i}]`)
        })
        return `[${parts.join(',')}]`
      }
      if (v instanceof Date) return JSON.stringify(v.toISOString())
      const obj = v as Record<string, unknown>
      const keys = Object.keys(obj).filter(k => obj[k] !== undefined).sort()
      return `{${keys.map(k => `${JSON.stringify(k)}:${write(obj[k], `${at}.${k}`)}`).join(',')}}`
    }
    default:
      throw new InvalidInputError(`${at}: ${typeof v} cannot be stored in a record`, {path: at})
  }
}

/** A deep copy through canonical JSON: drops undefined members, normalizes -0 and dates. */
export function normalizeJson<T>(value: T): T {
  return JSON.parse(canonicalJson(value)) as T
}

/** UTC timestamp with millisecond precision, the only time format records carry. */
export function utcTimestamp(d: Date): string {
  return d.toISOString()
}
