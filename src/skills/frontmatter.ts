import {isMap, isPair, isScalar, type Document, type LineCounter} from '../vendor/yaml.js'
import {strictYaml} from '../records/yaml.js'

/**
 * The frontmatter block of a SKILL.md, located by lines and parsed with `yaml` so that
 * every key and every syntax error has a line number (skills-ref reports none).
 */
export interface FrontmatterBlock {
  /** raw lines, both delimiters included; empty when there is no block */
  lines: string[]
  /** the opening `---` is there but no closing line was found */
  unclosed: boolean
  data: Record<string, unknown>
  /** YAML syntax errors, lines relative to the whole file */
  errors: {message: string; line?: number; column?: number}[]
  /** the value is not a mapping */
  notMapping: boolean
  /** 1-based file line of each top-level key */
  keyLines: Map<string, number>
  /** bytes of the block when it is over MAX_FRONTMATTER_BYTES (then it is not parsed) */
  tooLarge?: number
}

/** A frontmatter larger than this is refused unparsed: it goes into every prompt that lists skills. */
export const MAX_FRONTMATTER_BYTES = 64 * 1024

const DELIM = /^---\s*$/

export function readFrontmatter(lines: readonly string[]): FrontmatterBlock {
  const none: FrontmatterBlock = {lines: [], unclosed: false, data: {}, errors: [], notMapping: false, keyLines: new Map()}
  if (!DELIM.test(lines[0] ?? '')) return none
  const close = lines.findIndex((l, i) => i > 0 && (DELIM.test(l) || /^\.\.\.\s*$/.test(l)))
  if (close < 0) return {...none, unclosed: true}
  const block = lines.slice(0, close + 1)
  const yamlText = block.slice(1, -1).join('\n')
  const bytes = Buffer.byteLength(yamlText)
  if (bytes > MAX_FRONTMATTER_BYTES) return {...none, lines: block, tooLarge: bytes}
  // the YAML starts on file line 2: shift every position by one line (a problem of the whole
  // document, an alias bomb say, is put at that line)
  const {doc, lines: counter, value, problems} = strictYaml(yamlText)
  const errors = problems.map(p => ({message: p.message, line: (p.line ?? 1) + 1, column: p.column ?? 1}))
  const keyLines = new Map<string, number>()
  let data: Record<string, unknown> = {}
  let notMapping = false
  if (!errors.length) {
    if (value === null || value === undefined) data = {}
    else if (typeof value === 'object' && !Array.isArray(value)) data = value as Record<string, unknown>
    else notMapping = true
    collectKeyLines(doc, counter, keyLines)
  }
  return {lines: block, unclosed: false, data, errors, notMapping, keyLines}
}

function collectKeyLines(doc: Document, counter: LineCounter, out: Map<string, number>): void {
  if (!isMap(doc.contents)) return
  for (const pair of doc.contents.items) {
    if (!isPair(pair) || !isScalar(pair.key) || !pair.key.range) continue
    out.set(String(pair.key.value), counter.linePos(pair.key.range[0]).line + 1)
  }
}
