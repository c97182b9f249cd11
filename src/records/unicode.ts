import {MAX_DEPTH} from './depth.js'

/** a UTF-16 surrogate, paired or not (no `u` flag: code units) */
const SURROGATE = /[\ud800-\udfff]/

/** The escape of the first lone UTF-16 surrogate of a string (`\ud800`), or '' when it has none. */
function surrogateEscape(s: string): string {
  // (most strings have no surrogate at all: one regular expression scan says so)
  if (!SURROGATE.test(s)) return ''
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xd800 || c > 0xdfff) continue
    const next = s.charCodeAt(i + 1)
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++
    else return `\\u${c.toString(16)}`
  }
  return ''
}

/** A lone surrogate found: where (the path of its value, or of the object whose key holds it) and its escape. */
export interface LoneSurrogate {
  /** `$.a[1].b`, or `$.a (the key "k\ud800")` */
  path: string
  /** the path as keys and indexes (of the object, for a key) */
  segments: (string | number)[]
  /** the key that holds it, when it is in a key */
  key?: string
  escape: string
}

/**
 * Where the first key or string value holding a lone UTF-16 surrogate is (`"\ud800"` in JSON,
 * or in a double-quoted YAML string): no character, not UTF-8 when written, and read back
 * by other JSON readers as U+FFFD or refused — a record's digest could not be re-derived
 * from what they read. Undefined when every string is Unicode text. Not looked for deeper than
 * MAX_DEPTH (a value that deep, or one that holds itself, is refused by its own check), and
 * each object looked into once.
 */
export function loneSurrogate(v: unknown): LoneSurrogate | undefined {
  const segments: (string | number)[] = []
  // each object once (again only when met less deep, where more of it is within the depth
  // looked at): YAML aliases share one, and one inside its own anchor holds itself, which a
  // walk of every path would visit exponentially often
  const seen = new Map<object, number>()
  const at = () => `$${segments.map(k => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}`
  const walk = (x: unknown): LoneSurrogate | undefined => {
    if (typeof x === 'string') {
      const escape = surrogateEscape(x)
      return escape ? {path: at(), segments: [...segments], escape} : undefined
    }
    if (x === null || typeof x !== 'object' || segments.length > MAX_DEPTH + 1 || (seen.get(x) ?? Infinity) <= segments.length) return undefined
    seen.set(x, segments.length)
    const entries: [string | number, unknown][] = Array.isArray(x) ? x.map((y, i) => [i, y]) : Object.entries(x as Record<string, unknown>)
    for (const [k, y] of entries) {
      const escape = typeof k === 'string' ? surrogateEscape(k) : ''
      if (escape) return {path: `${at()} (the key ${JSON.stringify(k)})`, segments: [...segments], key: k as string, escape}
      segments.push(k)
      const found = walk(y)
      segments.pop()
      if (found) return found
    }
    return undefined
  }
  return walk(v)
}

/** The error for a lone surrogate (loneSurrogate), after where it is. */
export function loneSurrogateProblem(lone: LoneSurrogate): string {
  return `${lone.path}: a lone UTF-16 surrogate (${lone.escape}) is not a character; write the text itself, or the surrogate pair of a character beyond U+FFFF`
}

/**
 * The length of the valid UTF-8 sequence that starts at b[i] (1 to 4), or 0 when none does:
 * a stray continuation byte, a truncated sequence, an overlong form, an encoded surrogate
 * or a code point past U+10FFFF.
 */
export function utf8SequenceAt(b: Uint8Array, i: number): number {
  const c = b[i]!
  const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1
  if (n < 0) return 0
  for (let k = 1; k <= n; k++) if (i + k >= b.length || (b[i + k]! & 0xc0) !== 0x80) return 0
  if ((c === 0xe0 && b[i + 1]! < 0xa0) || (c === 0xed && b[i + 1]! > 0x9f) || (c === 0xf0 && b[i + 1]! < 0x90) || (c === 0xf4 && b[i + 1]! > 0x8f)) return 0
  return n + 1
}
