import type {Document, LineCounter} from '../vendor/yaml.js'
import {offsetOf, strictYaml} from '../records/yaml.js'

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
  return {doc, lines, data, errors}
}

/**
 * The line of the deepest node found along `path`: the key line for a map entry (so an
 * unknown field points at its key), the item line for a list entry.
 */
export function lineOf(y: LocatedYaml, path: readonly (string | number)[]): number {
  return y.lines.linePos(offsetOf(y.doc, path)).line
}
