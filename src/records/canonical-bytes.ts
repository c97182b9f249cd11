/**
 * Whether JSON bytes are the canonical form (canonical.ts) of what they parse to, without
 * serializing it again: one pass over the bytes, for text JSON.parse has already accepted.
 *
 * A record read from history is hashed as it is; without this, bytes that parse to the same
 * record in another form (`{"text":"evil","text":"good"}`, a key out of order, a space, `1.0`,
 * `\u0061`) would pass with a digest computed over exactly those bytes, and a reader that
 * keeps the first of two keys would see another record than exp does. Canonical bytes have
 * one meaning for every JSON parser and re-derive to their digest.
 *
 * Canonical means what canonicalJson writes: no whitespace outside strings; the keys of each
 * object strictly increasing in UTF-16 code-unit order (no key twice); strings escaped as
 * JSON.stringify escapes them (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00xx` for other
 * control characters, everything else as itself); numbers as JSON.stringify writes them.
 * Returns undefined when it cannot tell cheaply (a `\u` escape of a surrogate): the caller
 * compares with canonicalJson then. `ascii`: the caller knows every byte is below 0x80 (keys
 * without escapes then compare byte by byte).
 */
export function canonicalBytes(b: Uint8Array, end: number, ascii = false): boolean | undefined {
  // for each open container: where its last key started and ended (-1: none yet, or an array)
  const keyFrom: number[] = []
  const keyTo: number[] = []
  const keyPlain: boolean[] = []
  let depth = 0
  let i = 0
  while (i < end) {
    const c = b[i]!
    if (c === QUOTE) {
      const from = i + 1
      let j = from
      let plain = true
      for (;;) {
        let d = b[j]!
        while (d !== QUOTE && d !== BACKSLASH) d = b[++j]!
        if (d === QUOTE) break
        const e = escapeLength(b, j)
        if (e === 0) return false
        if (e < 0) return undefined
        plain = false
        j += e
      }
      i = j + 1
      if (b[i] === COLON) {
        // a key: after the one before it in this object
        if (plain && !ascii) for (let k = from; k < j; k++) if (b[k]! >= 0x80) plain = false
        const at = depth - 1
        const prev = keyFrom[at]!
        if (prev >= 0 && !keyBefore(b, prev, keyTo[at]!, keyPlain[at]! && plain, from, j)) return false
        keyFrom[at] = from
        keyTo[at] = j
        keyPlain[at] = plain
        i++
      }
      continue
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      keyFrom[depth] = -1
      depth++
      i++
      continue
    }
    if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
      i++
      continue
    }
    if (c === COMMA) {
      i++
      continue
    }
    if (c === 0x74 || c === 0x6e) {
      // true, null (JSON.parse accepted them)
      i += 4
      continue
    }
    if (c === 0x66) {
      i += 5
      continue
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      // an integer of up to 15 digits without a leading zero is as JSON.stringify writes it
      let j = c === 0x2d ? i + 1 : i
      const first = j
      while (j < end && b[j]! >= 0x30 && b[j]! <= 0x39) j++
      const digits = j - first
      if (j < end && isNumberByte(b[j]!)) {
        while (j < end && isNumberByte(b[j]!)) j++
        if (!canonicalNumber(b, i, j)) return false
      } else if (digits === 0 || digits > 15 || (b[first] === 0x30 && (digits > 1 || c === 0x2d))) {
        if (!canonicalNumber(b, i, j)) return false
      }
      i = j
      continue
    }
    // whitespace, or anything else canonical JSON does not hold outside strings
    return false
  }
  return true
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

function canonicalNumber(b: Uint8Array, from: number, to: number): boolean {
  let token = ''
  for (let k = from; k < to; k++) token += String.fromCharCode(b[k]!)
  return String(Number(token)) === token
}

function isNumberByte(d: number): boolean {
  return (d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d
}

/**
 * The length of the escape at `b[j]` (a backslash) when it is the one JSON.stringify writes,
 * 0 when it is not, -1 when only a full comparison can tell (a surrogate).
 */
function escapeLength(b: Uint8Array, j: number): number {
  const e = b[j + 1]
  if (e === QUOTE || e === BACKSLASH || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) return 2
  if (e !== 0x75) return 0 // (`\/` included: JSON.stringify writes `/`)
  // \uXXXX: lowercase hex, for a control character without a short form
  let code = 0
  for (let k = j + 2; k < j + 6; k++) {
    const h = b[k]!
    const v = h >= 0x30 && h <= 0x39 ? h - 0x30 : h >= 0x61 && h <= 0x66 ? h - 0x57 : -1
    if (v < 0) return code >= 0xd8 ? -1 : 0 // (uppercase hex of a surrogate: let the comparison say)
    code = code * 16 + v
  }
  if (code >= 0xd800 && code <= 0xdfff) return -1
  return code < 0x20 && code !== 0x08 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d ? 6 : 0
}

/**
 * Whether the key at [af, at) sorts strictly before the key at [bf, bt) in UTF-16 code-unit
 * order. ASCII keys without escapes (`plain`) compare byte by byte; others are decoded first
 * (in UTF-8, byte order is code-point order, which differs from code-unit order above U+FFFF).
 */
function keyBefore(b: Uint8Array, af: number, at: number, plain: boolean, bf: number, bt: number): boolean {
  if (plain) {
    const n = Math.min(at - af, bt - bf)
    for (let k = 0; k < n; k++) {
      const x = b[af + k]!
      const y = b[bf + k]!
      if (x !== y) return x < y
    }
    return at - af < bt - bf
  }
  const a = decodeKey(b, af, at)
  const c = decodeKey(b, bf, bt)
  return a < c
}

function decodeKey(b: Uint8Array, from: number, to: number): string {
  return JSON.parse(Buffer.from(b.buffer, b.byteOffset + from - 1, to - from + 2).toString('utf8')) as string
}
