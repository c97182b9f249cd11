import {isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node} from '../vendor/yaml.js'
import {loneSurrogate, loneSurrogateProblem} from '../records/parse.js'

/**
 * YAML with positions: parse once, then map any data path (['invariants', 3, 'equals'])
 * back to a 1-based line, so schema and semantic problems point into the file.
 */
export interface LocatedYaml {
  doc: Document
  lines: LineCounter
  data: unknown
  /** syntax problems with their positions */
  errors: {line: number; column: number; message: string}[]
}

/** aliases a scenario may expand; more is refused as a possible alias bomb */
export const MAX_SCENARIO_ALIASES = 50

export function parseLocated(text: string): LocatedYaml {
  const lines = new LineCounter()
  const doc = parseDocument(text, {lineCounter: lines, prettyErrors: false, uniqueKeys: true, strict: true})
  const errors = [...doc.errors, ...doc.warnings].map(e => {
    const {line, col} = lines.linePos(e.pos[0])
    return {line, column: col, message: e.message.split('\n')[0]!}
  })
  let data: unknown
  if (!doc.errors.length) {
    try {
      data = doc.toJS({maxAliasCount: MAX_SCENARIO_ALIASES})
    } catch (e) {
      // an alias bomb (or an alias loop) is this file's problem, reported like a syntax
      // error, never an exception that stops every other scenario from loading
      const m = (e as Error).message ?? String(e)
      // an alias whose anchor is not set: most often a glob that starts with `*` left unquoted
      // (`- *.py`), which was reported at line 1 as an alias bomb
      const unresolved = /^Unresolved alias\b[^\n]*?: (\S+)/.exec(m)
      if (unresolved) {
        const at = text.indexOf(`*${unresolved[1]}`)
        const {line, col} = at < 0 ? {line: 1, col: 1} : lines.linePos(at)
        errors.push({line, column: col, message: `*${unresolved[1]} is an alias of no anchor set before it: a value that starts with * must be quoted ("*${unresolved[1]}")`})
      } else errors.push({line: 1, column: 1, message: /alias/i.test(m) ? `too many alias expansions (more than ${MAX_SCENARIO_ALIASES}): refused as a possible alias bomb` : m.split('\n')[0]!})
    }
  }
  // (a lone surrogate escaped in a double-quoted string is no character: refused as in records)
  const lone = errors.length ? undefined : loneSurrogate(data)
  if (lone) errors.push({line: lineOf({doc, lines, data, errors}, lone.segments), column: 1, message: loneSurrogateProblem(lone)})
  return {doc, lines, data, errors}
}

/**
 * The line of the deepest node found along `path`: the key line for a map entry (so an
 * unknown field points at its key), the item line for a list entry.
 */
export function lineOf(y: LocatedYaml, path: readonly (string | number)[]): number {
  let node: unknown = y.doc.contents
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
  return y.lines.linePos(offset).line
}
