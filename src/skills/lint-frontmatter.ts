import {parseFrontmatter, validateMetadata} from 'skills-ref'
import {MAX_FRONTMATTER_BYTES, type FrontmatterBlock} from './frontmatter.js'
import type {RuleId} from './rules.js'

/** A problem before it is tied to a file. */
export interface ProblemDraft {
  rule: RuleId
  message: string
  line?: number
  column?: number
}

/** skills-ref reports plain sentences; this gives each of them a stable rule id. */
const SPEC_RULES: [RegExp, RuleId][] = [
  [/^(Path does not exist|Not a directory|Missing required file: SKILL\.md|SKILL\.md not found)/, 'skill/missing'],
  [/must start with YAML frontmatter/, 'frontmatter/missing'],
  [/not properly closed/, 'frontmatter/unclosed'],
  // before the YAML rule: skills-ref wraps its own "not a mapping" error as invalid YAML
  [/frontmatter must be a YAML mapping/, 'frontmatter/not-mapping'],
  [/^Invalid YAML in frontmatter/, 'frontmatter/yaml'],
  [/^Unexpected fields in frontmatter/, 'frontmatter/unknown-key'],
  [/(required field in frontmatter: name|Field 'name' must be)/, 'name/required'],
  [/^Skill name .* exceeds/, 'name/length'],
  [/^Skill name .* (must be lowercase|contains invalid characters)/, 'name/charset'],
  [/hyphen/, 'name/hyphens'],
  [/^Directory name .* must match skill name/, 'name/folder'],
  [/(required field in frontmatter: description|Field 'description' must be)/, 'description/required'],
  [/^Description exceeds/, 'description/length'],
  [/^Field 'compatibility' must be/, 'compatibility/type'],
  [/^Compatibility exceeds/, 'compatibility/length'],
]

export function specRule(message: string): RuleId {
  return SPEC_RULES.find(([re]) => re.test(message))?.[1] ?? 'spec/other'
}

const ALLOWED_KEYS = new Set(['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'])

/**
 * skills-ref's findings for a SKILL.md text without touching the disk: the same two calls
 * its `validate(dir)` makes after reading the file (for texts read from git, not a folder).
 */
export function specMessages(text: string, folder: string): string[] {
  try {
    const [meta] = parseFrontmatter(text)
    return validateMetadata(meta, folder)
  } catch (e) {
    return [e instanceof Error ? e.message : String(e)]
  }
}

/**
 * Frontmatter problems: our own YAML parse first (it has lines and columns), then the
 * spec findings of skills-ref, then the stricter exp rules. One problem per rule: a later
 * finding of a rule already reported adds nothing.
 */
export function frontmatterProblems(fm: FrontmatterBlock, spec: readonly string[]): ProblemDraft[] {
  const out: ProblemDraft[] = []
  if (fm.tooLarge !== undefined) {
    return [{rule: 'frontmatter/size', line: 1, message: `the frontmatter is ${fm.tooLarge} bytes, more than ${MAX_FRONTMATTER_BYTES} (64 KiB): keep the fields short and move long text into the body`}]
  }
  if (fm.unclosed) out.push({rule: 'frontmatter/unclosed', line: 1, message: 'the frontmatter opened on line 1 is never closed by a `---` line'})
  for (const e of fm.errors) out.push({rule: 'frontmatter/yaml', line: e.line, column: e.column, message: `invalid YAML in frontmatter: ${e.message}`})
  if (fm.notMapping) out.push({rule: 'frontmatter/not-mapping', line: 2, message: 'the frontmatter must be a YAML mapping of fields'})
  for (const message of spec) {
    const rule = specRule(message)
    out.push({rule, message, line: lineFor(rule, fm)})
  }
  if (fm.lines.length && !fm.errors.length && !fm.notMapping) out.push(...stricter(fm))
  const seen = new Set<RuleId>()
  return out.filter(p => !seen.has(p.rule) && Boolean(seen.add(p.rule)))
}

function lineFor(rule: RuleId, fm: FrontmatterBlock): number | undefined {
  if (rule === 'skill/missing') return undefined
  if (rule === 'frontmatter/unknown-key') {
    const unknown = [...fm.keyLines.keys()].find(k => !ALLOWED_KEYS.has(k))
    return unknown ? fm.keyLines.get(unknown) : 1
  }
  const key = rule.split('/')[0]!
  return fm.keyLines.get(key) ?? 1
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== ''

/** What the Agent Skills spec says but skills-ref does not check (or coerces silently). */
function stricter(fm: FrontmatterBlock): ProblemDraft[] {
  const d = fm.data
  const at = (key: string) => fm.keyLines.get(key)
  const out: ProblemDraft[] = []
  // skills-ref runs String() on the value, so `name: 42` or an empty `name:` passes there
  if (!isText(d.name)) out.push({rule: 'name/required', line: at('name') ?? 1, message: '`name` must be a non-empty string'})
  else if (!/^[a-z0-9-]+$/.test(d.name)) out.push({rule: 'name/charset', line: at('name'), message: `skill name '${d.name}' may only use lowercase a-z, digits and hyphens`})
  if (!isText(d.description)) out.push({rule: 'description/required', line: at('description') ?? 1, message: '`description` must be a non-empty string'})
  // descriptions are pasted into the <available_skills> XML block of agent prompts
  else if (/[<>]/.test(d.description)) out.push({rule: 'description/angle-brackets', line: at('description'), message: '`description` must not contain `<` or `>`'})
  for (const key of ['license', 'allowed-tools', 'compatibility'] as const) {
    if (key in d && typeof d[key] !== 'string') out.push({rule: `${key}/type`, line: at(key), message: `\`${key}\` must be a string`})
  }
  if ('metadata' in d) {
    const m = d.metadata
    const ok = typeof m === 'object' && m !== null && !Array.isArray(m) && Object.values(m).every(v => typeof v === 'string')
    if (!ok) out.push({rule: 'metadata/type', line: at('metadata'), message: '`metadata` must map string keys to string values'})
  }
  return out
}
