import {isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node} from '../vendor/yaml.js'
import {loneSurrogate, loneSurrogateProblem} from '../records/parse.js'
import {strictYaml} from '../records/yaml.js'

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
  const {doc, lines, value: data, problems} = strictYaml(text, {maxAliases: MAX_SCENARIO_ALIASES})
  const errors = problems.map(p => ({line: p.line ?? 1, column: p.column ?? 1, message: p.message}))
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
