/** Small text helpers shared by the parser, the linter and patches. */

/** A list marker at the start of a line: indent, then `1.`/`1)` or `-`/`*`/`+`, then space. */
const MARKER = /^(\s*)(?:(\d{1,9})([.)])|([-*+]))(?:[ \t]+|$)/

export interface Marker {
  indent: string
  number?: number
  /** `.` or `)` for ordered items, the bullet character otherwise */
  delimiter: string
  /** the whole prefix, spaces included */
  prefix: string
}

export function markerOf(line: string): Marker | undefined {
  const m = MARKER.exec(line)
  if (!m) return undefined
  return m[2] !== undefined
    ? {indent: m[1]!, number: Number(m[2]), delimiter: m[3]!, prefix: m[0]}
    : {indent: m[1]!, delimiter: m[4]!, prefix: m[0]}
}

/** The line without its list marker (and without a trailing `\r`). */
export function stripMarker(line: string): string {
  const m = markerOf(line)
  return (m ? line.slice(m.prefix.length) : line).replace(/\r$/, '')
}

/**
 * The comparison form of a line of skill text: Unicode-normalized, case-folded, runs of
 * whitespace collapsed, list marker dropped. Anchors and patch digests both use it, so
 * "3.  Check  Inventory" and "check inventory" are the same line.
 */
export function fold(text: string): string {
  return stripMarker(text.trim()).normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()
}

/** Splits on `\n` only: a `\r` stays on its line, so joining with `\n` is exact. */
export function splitLines(text: string): string[] {
  return text.split('\n')
}

export function isBlank(line: string | undefined): boolean {
  return line === undefined || line.trim() === ''
}

/** The line ending to use for new lines: CRLF when the text already uses it. */
export function eolSuffix(lines: readonly string[]): string {
  return lines.some(l => l.endsWith('\r')) ? '\r' : ''
}
