import {findSection, sectionKey} from './parse.js'
import {isBlank} from './text.js'
import type {ProblemDraft} from './lint-frontmatter.js'
import type {ParsedSkill} from './types.js'

/**
 * Body rules: the sections a skill must have (docs/skills.md) and a well-formed numbered
 * procedure — the executing agent reads the raw text, so "1, 2, 2, 4" is a real defect
 * even though Markdown would render it fine.
 */
export function bodyProblems(parsed: ParsedSkill, required: readonly string[]): ProblemDraft[] {
  const out: ProblemDraft[] = []
  for (const title of required) {
    if (!findSection(parsed, title)) out.push({rule: 'section/missing', message: `missing section "## ${title}"`})
  }
  const seen = new Set<string>()
  for (const s of parsed.sections) {
    const key = sectionKey(s.title)
    if (seen.has(key)) out.push({rule: 'section/duplicate', line: s.line, message: `section "${s.title}" appears more than once`})
    seen.add(key)
    if (s.lines.slice(1).every(l => isBlank(l))) out.push({rule: 'section/empty', line: s.line, message: `section "${s.title}" is empty`})
  }
  out.push(...procedureProblems(parsed))
  return out
}

function procedureProblems(parsed: ParsedSkill): ProblemDraft[] {
  const proc = findSection(parsed, 'Procedure')
  if (!proc || proc.lines.slice(1).every(l => isBlank(l))) return []
  const steps = proc.items.filter(i => i.ordered)
  if (!steps.length) return [{rule: 'procedure/list', line: proc.line, message: 'section "Procedure" has no numbered list of steps'}]
  // each ordered list counts up by one; the first one starts at 1
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!
    const prev = steps[i - 1]
    const expected = !prev ? 1 : prev.list === step.list ? (prev.number ?? 0) + 1 : undefined
    if (expected !== undefined && step.number !== expected) {
      return [{rule: 'procedure/numbering', line: proc.line + step.start, message: `procedure step "${step.text}" is numbered ${step.number}, expected ${expected}`}]
    }
  }
  return []
}
