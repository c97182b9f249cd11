/**
 * The first duplicate key of any object in a JSON text (which JSON.parse accepted), with its
 * offset; undefined when every object's keys are distinct. JSON.parse keeps the last of two
 * equal keys without a word, so a record would silently lose a field its author wrote.
 * A single pass over the text: strings are skipped as a whole, keys compared decoded.
 */
export function duplicateKey(text: string): {key: string; pos: number} | undefined {
  return scanJson(text, false)?.duplicate
}

/** What a JSON text says that JSON.parse would change without a word: a key twice (the last kept), an integer beyond 2^53 (rounded). */
export interface JsonFinding {
  duplicate?: {key: string; pos: number}
  /** an integer literal whose value is not a safe integer, and its offset */
  unsafe?: {literal: string; pos: number}
}

/**
 * The first finding of a JSON text (which JSON.parse accepted), in text order: duplicate keys
 * (and, with `numbers`, integer literals JSON.parse rounds). One pass: strings are skipped
 * as a whole, keys compared decoded.
 */
export function scanJson(text: string, numbers = true): JsonFinding | undefined {
  const stack: (Set<string> | undefined)[] = []
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      const start = i
      i++
      let escaped = false
      while (i < n) {
        const d = text.charCodeAt(i)
        if (d === 0x5c /* \ */) {
          escaped = true
          i += 2
          continue
        }
        if (d === 0x22) break
        i++
      }
      i++
      const keys = stack[stack.length - 1]
      if (keys) {
        // a string in an object is a key when a colon follows it
        let j = i
        while (j < n && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09 || text.charCodeAt(j) === 0x0a || text.charCodeAt(j) === 0x0d)) j++
        if (text.charCodeAt(j) === 0x3a /* : */) {
          const raw = text.slice(start, i)
          const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1)
          if (keys.has(key)) return {duplicate: {key, pos: start}}
          keys.add(key)
        }
      }
      continue
    }
    if (numbers && (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39))) {
      // a number: an integer literal (no fraction, no exponent) of 16 digits or more may be
      // beyond 2^53, where JSON.parse rounds it (12345678901234567890 read as ...67000)
      const start = i
      let digits = 0
      let integer = true
      for (; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d >= 0x30 && d <= 0x39) digits++
        else if (d === 0x2e || d === 0x65 || d === 0x45) integer = false
        else if (d !== 0x2b && d !== 0x2d) break
      }
      if (integer && digits >= 16) {
        const literal = text.slice(start, i)
        if (!Number.isSafeInteger(Number(literal))) return {unsafe: {literal, pos: start}}
      }
      continue
    }
    if (c === 0x7b /* { */) stack.push(new Set())
    else if (c === 0x5b /* [ */) stack.push(undefined)
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop()
    i++
  }
  return undefined
}

/** The problem of an integer literal beyond 2^53, which a JSON or YAML reader rounds (scanJson finds it in JSON, strictYaml in YAML). */
export function unsafeIntegerProblem(literal: string): string {
  const shown = literal.length > 40 ? `${literal.slice(0, 40)}…` : literal
  return `${shown} is an integer beyond 2^53 (${Number.MAX_SAFE_INTEGER}): it would be read as ${Number(literal)}, not as written; write it as a string ("${shown}")`
}
