import {ParseError} from '../errors/index.js'
import {scanJson, unsafeIntegerProblem} from './json-keys.js'
import {loneSurrogate, loneSurrogateProblem, utf8SequenceAt} from './unicode.js'

/**
 * Bytes to text, refusing invalid UTF-8 instead of storing U+FFFD in its place: a record
 * keeps exactly what it was given, or nothing. The error names the file, line and column.
 */
export function decodeUtf8(buf: Uint8Array, file: string): string {
  try {
    return new TextDecoder('utf-8', {fatal: true}).decode(buf)
  } catch {
    const bad = firstInvalidUtf8(buf)
    const before = new TextDecoder('utf-8').decode(buf.subarray(0, bad))
    const line = before.split('\n').length
    const col = before.length - before.lastIndexOf('\n')
    throw new ParseError(file, `invalid UTF-8 at byte ${bad} (save the file as UTF-8)`, line, col)
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const n = utf8SequenceAt(b, i)
    if (!n) return i
    i += n
  }
  return b.length
}

function lineCol(text: string, pos: number): {line: number; col: number} {
  const before = text.slice(0, pos)
  return {line: before.split('\n').length, col: pos - before.lastIndexOf('\n')}
}

/** JSON.parse, refusing duplicate keys (JSON.parse would keep the last one silently). */
function parseJsonStrict(text: string, file: string, lineBase = 0): unknown {
  return refuseSilentChanges(JSON.parse(text) as unknown, text, file, lineBase)
}

/** `value`, JSON.parse of `text`, refused when an object of the text has a key twice or an integer JSON.parse rounded. */
function refuseSilentChanges(value: unknown, text: string, file: string, lineBase = 0): unknown {
  const found = typeof value === 'object' && value !== null ? scanJson(text) : undefined
  if (found?.duplicate) {
    const {line, col} = lineCol(text, found.duplicate.pos)
    throw new ParseError(file, `duplicate key ${JSON.stringify(found.duplicate.key)} (a record field may appear once)`, lineBase + line, col)
  }
  if (found?.unsafe) {
    const {line, col} = lineCol(text, found.unsafe.pos)
    throw new ParseError(file, unsafeIntegerProblem(found.unsafe.literal), lineBase + line, col)
  }
  return value
}

/** The value, refused when a string of it is not Unicode text (loneSurrogate). */
function unicodeOnly<T>(value: T, file: string, line?: number): T {
  const lone = loneSurrogate(value)
  if (lone) throw new ParseError(file, loneSurrogateProblem(lone), line)
  return value
}

/** Parse YAML or JSON text (JSON is YAML 1.2); syntax errors name file, line and column. */
export async function parseYamlOrJson(text: string, file: string): Promise<unknown> {
  const t = text.trimStart()
  if (t.startsWith('{') || t.startsWith('[')) {
    let value: unknown
    let ok = false
    try {
      value = JSON.parse(text)
      ok = true
    } catch {
      // fall through to the YAML parser, which reports line and column
    }
    // (parsed once: duplicate keys and rounded integers are looked for in the text)
    if (ok) return unicodeOnly(refuseSilentChanges(value, text, file), file)
  }
  // (loaded when a text is YAML: a JSON input, the usual one, does not load the YAML parser)
  const {strictYaml} = await import('./yaml.js')
  const y = strictYaml(text)
  const p = y.problems[0]
  if (p) throw new ParseError(file, p.message, p.line, p.column)
  return y.value
}

/** Parse JSON Lines; blank lines are skipped; errors name the line. */
export function parseJsonLines(text: string, file: string): {line: number; value: unknown}[] {
  const out: {line: number; value: unknown}[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const s = lines[i]!.trim()
    if (!s) continue
    try {
      out.push({line: i + 1, value: unicodeOnly(parseJsonStrict(s, file, i), file, i + 1)})
    } catch (e) {
      if (e instanceof ParseError) throw e
      const m = /position (\d+)/.exec((e as Error).message)
      throw new ParseError(file, `invalid JSON: ${(e as Error).message}`, i + 1, m ? Number(m[1]) + 1 : undefined)
    }
  }
  return out
}
