import {LineCounter, parseDocument, visit, type Document} from '../vendor/yaml.js'
import {unsafeIntegerProblem} from './json-keys.js'

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
 * alias or indentation as one of its readings), and aliases expanded at most `maxAliases`
 * times, so that an alias bomb is a problem of its file, never an exception that stops a
 * command (or every other scenario from loading). The value is made only when the text has
 * no problem. Each caller puts the problems in its own shape (an error, lint problems).
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
  try {
    return {doc, lines, value: doc.toJS({maxAliasCount: maxAliases}), problems}
  } catch (e) {
    return {doc, lines, problems: [expansionProblem(e, text, lines, maxAliases)]}
  }
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
