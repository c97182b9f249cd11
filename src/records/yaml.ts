import {isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node} from '../vendor/yaml.js'
import {unsafeIntegerProblem} from './json-keys.js'
import {loneSurrogate, loneSurrogateProblem} from './unicode.js'

/** YAML aliases a document may expand; more is refused as a possible alias bomb. */
export const MAX_YAML_ALIASES = 100

/** A problem of a YAML text, at a 1-based line and column of that text (none: of the whole document, an alias bomb say). */
export interface YamlProblem {
  line?: number
  column?: number
  message: string
}

export interface StrictYaml {
  doc: Document
  lines: LineCounter
  /** the value, set when there is no problem */
  value?: unknown
  problems: YamlProblem[]
}

/**
 * YAML as exp reads it, wherever it comes from (a record, a scenario or a contract, a
 * PURPOSE.yaml, a SKILL.md's frontmatter): keys unique, every warning a problem (a tag yaml
 * does not know, `!!js/function` say, would be read as the plain text after it; an ambiguous
 * alias or indentation as one of its readings), aliases expanded at most `maxAliases`
 * times, so that an alias bomb is a problem of its file, never an exception that stops a
 * command (or every other scenario from loading), no integer beyond 2^53 (read rounded) and
 * no lone UTF-16 surrogate (`"\ud800"`, no character). The value is given only when the text
 * has no problem. Each caller puts the problems in its own shape (an error, lint problems).
 */
export function strictYaml(text: string, o: {maxAliases?: number} = {}): StrictYaml {
  const maxAliases = o.maxAliases ?? MAX_YAML_ALIASES
  const lines = new LineCounter()
  const doc = parseDocument(text, {lineCounter: lines, prettyErrors: false, uniqueKeys: true, strict: true})
  const problems: YamlProblem[] = [...doc.errors, ...doc.warnings].map(e => {
    const {line, col} = lines.linePos(e.pos[0])
    const detail = e.message.split('\n')[0]!
    return {line, column: col, message: e.code === 'TAG_RESOLVE_FAILED' ? `${detail} (exp reads plain YAML: the core schema's tags, !!str and !!int and the like, and no others)` : detail}
  })
  // an integer beyond 2^53 (decimal, hex or octal) is read rounded: refused, as in JSON
  if (!problems.length)
    visit(doc, {
      Scalar(_, node) {
        if (typeof node.value !== 'number' || Number.isSafeInteger(node.value) || !Number.isInteger(node.value) || !node.source || !/^[-+]?(0x[0-9a-fA-F]+|0o[0-7]+|[0-9]+)$/.test(node.source)) return undefined
        const {line, col} = lines.linePos(node.range?.[0] ?? 0)
        problems.push({line, column: col, message: unsafeIntegerProblem(node.source)})
        return visit.BREAK
      },
    })
  if (problems.length) return {doc, lines, problems}
  let value: unknown
  try {
    value = doc.toJS({maxAliasCount: maxAliases})
  } catch (e) {
    return {doc, lines, problems: [expansionProblem(e, text, lines, maxAliases)]}
  }
  // (an escape in a double-quoted string can make one; a record's digest could not be
  // re-derived by a reader that reads it as U+FFFD)
  const lone = loneSurrogate(value)
  if (!lone) return {doc, lines, value, problems}
  const {line, col} = lines.linePos(offsetOf(doc, lone.key === undefined ? lone.segments : [...lone.segments, lone.key]))
  return {doc, lines, problems: [{line, column: col, message: loneSurrogateProblem(lone)}]}
}

/**
 * Where in the text the deepest node found along a data path (['invariants', 3, 'equals'])
 * starts: the key for a map entry (so an unknown field points at its key), the item for a
 * list entry; the document's start when the path finds nothing.
 */
export function offsetOf(doc: Document, path: readonly (string | number)[]): number {
  let node: unknown = doc.contents
  let offset = (node as Node | null)?.range?.[0] ?? 0
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find(p => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg))
      if (!pair) break
      offset = (pair.key as Node).range?.[0] ?? offset
      node = pair.value
    } else if (isSeq(node)) {
      const item = node.items[Number(seg)] as Node | undefined
      if (!item) break
      offset = item.range?.[0] ?? offset
      node = item
    } else break
  }
  return offset
}

/** The problem of a document yaml refused to expand: an alias of no anchor, an alias bomb, an alias loop. */
function expansionProblem(e: unknown, text: string, lines: LineCounter, maxAliases: number): YamlProblem {
  const m = (e as Error)?.message ?? String(e)
  // an alias whose anchor is not set: most often a glob that starts with `*` left unquoted
  // (`- *.py`), which was reported at line 1 as an alias bomb
  const unresolved = /^Unresolved alias\b[^\n]*?: (\S+)/.exec(m)
  if (unresolved) {
    const at = text.indexOf(`*${unresolved[1]}`)
    const {line, col} = at < 0 ? {line: 1, col: 1} : lines.linePos(at)
    return {line, column: col, message: `*${unresolved[1]} is an alias of no anchor set before it: a value that starts with * must be quoted ("*${unresolved[1]}")`}
  }
  return {message: /alias/i.test(m) ? `too many YAML alias expansions (more than ${maxAliases}): refused as a possible alias bomb` : `cannot expand the YAML document: ${m.split('\n')[0]}`}
}
