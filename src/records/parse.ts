import {ParseError} from '../errors/index.js'
import {duplicateKey} from './json-keys.js'

/** YAML aliases a document may expand; more is refused as a possible alias bomb. */
export const MAX_YAML_ALIASES = 100

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
  let i = 0
  while (i < b.length) {
    const c = b[i]!
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1
    if (n < 0) return i
    for (let k = 1; k <= n; k++) if (i + k >= b.length || (b[i + k]! & 0xc0) !== 0x80) return i
    // overlong forms, surrogates and code points past U+10FFFF
    if ((c === 0xe0 && b[i + 1]! < 0xa0) || (c === 0xed && b[i + 1]! > 0x9f) || (c === 0xf0 && b[i + 1]! < 0x90) || (c === 0xf4 && b[i + 1]! > 0x8f)) return i
    i += n + 1
  }
  return b.length
}

function lineCol(text: string, pos: number): {line: number; col: number} {
  const before = text.slice(0, pos)
  return {line: before.split('\n').length, col: pos - before.lastIndexOf('\n')}
}

/** JSON.parse, refusing duplicate keys (JSON.parse would keep the last one silently). */
function parseJsonStrict(text: string, file: string, lineBase = 0): unknown {
  const value = JSON.parse(text) as unknown
  const dup = typeof value === 'object' && value !== null ? duplicateKey(text) : undefined
  if (dup) {
    const {line, col} = lineCol(text, dup.pos)
    throw new ParseError(file, `duplicate key ${JSON.stringify(dup.key)} (a record field may appear once)`, lineBase + line, col)
  }
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
    if (ok) return value !== null && typeof value === 'object' ? parseJsonStrict(text, file) : value
  }
  const {parseDocument, LineCounter} = await import('../vendor/yaml.js')
  const lc = new LineCounter()
  const doc = parseDocument(text, {lineCounter: lc, prettyErrors: false, uniqueKeys: true})
  const err = doc.errors[0]
  if (err) {
    const pos = err.linePos?.[0] ?? lc.linePos(err.pos[0])
    throw new ParseError(file, err.message.split('\n')[0]!, pos.line, pos.col)
  }
  try {
    return doc.toJS({maxAliasCount: MAX_YAML_ALIASES})
  } catch (e) {
    throw new ParseError(file, yamlExpansionProblem(e))
  }
}

/** The message for a document yaml refused to expand (an alias bomb, or an alias loop). */
export function yamlExpansionProblem(e: unknown): string {
  const m = (e as Error).message ?? String(e)
  return /alias/i.test(m) ? `too many YAML alias expansions (more than ${MAX_YAML_ALIASES}): refused as a possible alias bomb` : `cannot expand the YAML document: ${m.split('\n')[0]}`
}

/** Parse JSON Lines; blank lines are skipped; errors name the line. */
export function parseJsonLines(text: string, file: string): {line: number; value: unknown}[] {
  const out: {line: number; value: unknown}[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const s = lines[i]!.trim()
    if (!s) continue
    try {
      out.push({line: i + 1, value: parseJsonStrict(s, file, i)})
    } catch (e) {
      if (e instanceof ParseError) throw e
      const m = /position (\d+)/.exec((e as Error).message)
      throw new ParseError(file, `invalid JSON: ${(e as Error).message}`, i + 1, m ? Number(m[1]) + 1 : undefined)
    }
  }
  return out
}
