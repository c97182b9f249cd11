import type * as Y from 'yaml'
import {bundled} from './load.js'

/**
 * yaml, through one seam: the bundle scripts/vendor.mjs builds (~30 ms faster to load than
 * the package's modules), or the package when there is none. Types come from 'yaml'.
 */
const yaml = bundled<typeof Y>('yaml.cjs', 'yaml')
export const {Document, LineCounter, isMap, isPair, isScalar, isSeq, stringify, visit} = yaml
export type Document<C extends Y.Node = Y.Node, S extends boolean = true> = Y.Document<C, S>
export type LineCounter = Y.LineCounter
export type {Node} from 'yaml'

/** How deep a YAML text may nest (flow collections, and sequences opened on one line). */
export const MAX_YAML_DEPTH = 128

/**
 * Where `text` nests deeper than `max`, as an offset; undefined when it does not. Counted
 * from the characters (quoted scalars and comments skipped): `[` and `{` open a level, and
 * each `- ` that opens a line's entry does (`- - - x`). The parser recurses once per level,
 * and a 10 KB SKILL.md of 5,000 brackets overflowed its stack — after which node aborted
 * (a V8 fatal error compiling a regular expression), a crash no try could catch.
 */
export function tooDeep(text: string, max = MAX_YAML_DEPTH): number | undefined {
  let flow = 0
  let lastOpen = -1
  let lineStart = true
  let dashes = 0
  // block nesting: the indentations of the lines a line is nested under (a block map 3,000
  // levels deep overflowed the parser's stack as brackets did)
  const indents: number[] = []
  let from = 0
  let first = true
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x0a) {
      lineStart = true
      dashes = 0
      from = i + 1
      first = true
      continue
    }
    if (lineStart) {
      if (c === 0x20 || c === 0x09) continue
      if (first) {
        first = false
        if (flow === 0 && c !== 0x23 && c !== 0x0d) {
          const col = i - from
          while (indents.length && indents[indents.length - 1]! >= col) indents.pop()
          indents.push(col)
          if (indents.length > max) return i
        }
      }
      if (c === 0x2d && (text.charCodeAt(i + 1) === 0x20 || text.charCodeAt(i + 1) === 0x09)) {
        if (++dashes + flow > max) return i
        i++
        continue
      }
      lineStart = false
    }
    if (c === 0x22 || c === 0x27) {
      // a quoted scalar: to its closing quote ("…\"…" escapes; '…''…' doubles, read as two scalars)
      for (i++; i < text.length && text.charCodeAt(i) !== c; i++) if (c === 0x22 && text.charCodeAt(i) === 0x5c) i++
    } else if (c === 0x23 && (i === 0 || /\s/.test(text[i - 1]!))) {
      const nl = text.indexOf('\n', i)
      i = (nl < 0 ? text.length : nl) - 1
    } else if ((c === 0x5b || c === 0x7b) && opens(text, i, lastOpen)) {
      lastOpen = i
      if (++flow + dashes > max) return i
    } else if ((c === 0x5d || c === 0x7d) && flow > 0) flow--
  }
  return undefined
}

/** Whether the bracket at `i` opens a collection: after a key's `: `, an entry's `- `, a `,`, a bracket that opened one, or first on its line (not inside a plain scalar: `a[b`). */
function opens(text: string, i: number, lastOpen: number): boolean {
  let j = i - 1
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--
  if (j < 0 || text[j] === '\n') return true
  const p = text[j]!
  // (a bracket after a bracket opens only when that one did: `a[[[` is one plain scalar)
  return ((p === '[' || p === '{') && j === lastOpen) || p === ',' || ((p === ':' || p === '-' || p === '?') && j < i - 1)
}

/** A document of `text` nested deeper than MAX_YAML_DEPTH: empty, with the one error that says where. */
function refusedDocument(text: string, at: number, options?: Y.ParseOptions & Y.DocumentOptions & Y.SchemaOptions): Y.Document.Parsed {
  const doc = yaml.parseDocument('', {...options, lineCounter: undefined})
  // (the caller's line counter knows the text's lines, as a parse would have told it)
  const lc = options?.lineCounter
  if (lc) {
    lc.addNewLine(0)
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lc.addNewLine(i + 1)
  }
  const before = text.slice(0, at)
  const line = before.split('\n').length
  const col = at - before.lastIndexOf('\n')
  const err = new yaml.YAMLParseError([at, at + 1], 'BAD_INDENT', `nested deeper than ${MAX_YAML_DEPTH} levels: refused unparsed (a parser would recurse once a level)`)
  err.linePos = [{line, col}]
  doc.errors.push(err)
  return doc
}

/** yaml's parseDocument, for a text that does not nest deeper than MAX_YAML_DEPTH (else an empty document with one error). */
export function parseDocument(text: string, options?: Y.ParseOptions & Y.DocumentOptions & Y.SchemaOptions): Y.Document.Parsed {
  const at = tooDeep(text)
  return at === undefined ? yaml.parseDocument(text, options) : refusedDocument(text, at, options)
}

/** yaml's parse, for a text that does not nest deeper than MAX_YAML_DEPTH (else it throws the error that says where). */
export function parse(text: string, options?: Y.ParseOptions & Y.DocumentOptions & Y.SchemaOptions & Y.ToJSOptions): unknown {
  const at = tooDeep(text)
  if (at !== undefined) throw refusedDocument(text, at, options).errors[0]!
  return yaml.parse(text, options)
}
