import type {Condition, PreCall, Rule} from './types.js'
import {GUARDS, keyOf, RESULTS, STATES, WHEN, type Guard} from './vocabulary.js'
import {renderRule} from './render.js'

/**
 * Reading rules back from skill text. A line is a rule when, after removing a list marker,
 * surrounding spaces and a final period, it is exactly one of the forms renderRule writes;
 * any other line (prose, headings, near-misses) is not a rule. See docs/scripted-agent.md.
 */
const TOOL = '`([a-z][a-z0-9_]*)`'
const FIELD = '`([a-z_][a-z0-9_]*(?:\\.[a-z_][a-z0-9_]*)*)`'
const VALUE = '`([^`]+)`'
const CONDITION = new RegExp(`^${TOOL} shows ${FIELD} (is not ${VALUE}|is empty|is not empty|is above ${VALUE}|is ${VALUE}|includes the \`([a-z_][a-z0-9_]*)\`|does not include the \`([a-z_][a-z0-9_]*)\`)`)

/** `true`, `false` and numbers are typed; anything else is a string. */
function valueOf(s: string): string | number | boolean {
  if (s === 'true') return true
  if (s === 'false') return false
  return /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : s
}

/** `COND and COND …` → conditions; undefined unless the whole text is conditions. */
export function parseConditions(text: string): Condition[] | undefined {
  const out: Condition[] = []
  let rest = text
  for (;;) {
    const m = CONDITION.exec(rest)
    if (!m) return undefined
    const [all, source, field, test, notValue, aboveValue, isValue, inc, exc] = m
    const base = {source: source!, field: field!}
    if (notValue !== undefined) out.push({...base, test: 'is_not', value: valueOf(notValue)})
    else if (test === 'is empty') out.push({...base, test: 'empty'})
    else if (test === 'is not empty') out.push({...base, test: 'not_empty'})
    else if (aboveValue !== undefined) {
      const n = valueOf(aboveValue)
      if (typeof n !== 'number') return undefined
      out.push({...base, test: 'above', value: n})
    } else if (isValue !== undefined) out.push({...base, test: 'is', value: valueOf(isValue)})
    else if (inc !== undefined) out.push({...base, test: 'includes', arg: inc})
    else out.push({...base, test: 'excludes', arg: exc!})
    rest = rest.slice(all!.length)
    if (rest === '') return out
    if (!rest.startsWith(' and ')) return undefined
    rest = rest.slice(5)
  }
}

/** `a`, then `b`, then `c` → [a, b, c]; undefined when any part is not a tool. */
function sequence(text: string): string[] | undefined {
  const parts = text.split(', then ')
  const tools = parts.map(p => new RegExp(`^${TOOL}$`).exec(p)?.[1])
  return tools.every(Boolean) ? (tools as string[]) : undefined
}

function preCalls(text: string): PreCall[] | undefined {
  const out: PreCall[] = []
  for (const part of text.split(/, | and /)) {
    const m = new RegExp(`^${TOOL}(?: when (.+))?$`).exec(part)
    if (!m) return undefined
    const when = m[2] === undefined ? undefined : keyOf(WHEN, m[2])
    if (m[2] !== undefined && !when) return undefined
    out.push(when ? {tool: m[1]!, when} : {tool: m[1]!})
  }
  return out
}

/** Split `text, unless CONDS` (or `text<sep>CONDS`): the conditions and what precedes them. */
function suffix(text: string, sep: string): {head: string; conds?: Condition[]} | undefined {
  const at = text.lastIndexOf(`${sep}\``)
  if (at < 0) return {head: text}
  const conds = parseConditions(text.slice(at + sep.length))
  return conds ? {head: text.slice(0, at), conds} : undefined
}

const withConds = <R extends Rule>(r: R, when?: Condition[], unless?: Condition[]): R => ({...r, ...(when ? {when} : {}), ...(unless ? {unless} : {})})

const BEFORE = new RegExp(`^Before ${TOOL}, call (.+)$`)
const ON_ERROR = new RegExp(`^If ${TOOL} fails with \`([A-Z][A-Z0-9_]*)\`(?: and (\`.+?))?, call (\`.+?)( and stop)?$`)
const ON_RESULT = new RegExp(`^If ${TOOL} returns (.+?)(?: and (\`[a-z][a-z0-9_]*\` shows .+?))?, call (\`.+?)( and stop)?$`)
const NEVER = new RegExp(`^Never call ${TOOL}(?: while (.+?))?(?: when (\`.+?))?(?: unless (\`.+?))?$`)

/** Parse one line (list markers, surrounding spaces and the final period are optional). */
export function parseRule(line: string): Rule | undefined {
  const s = line.trim().replace(/^(?:[-*+]|\d+[.)])\s+/, '').replace(/\.$/, '')
  if (s.startsWith('Never call ')) return never(s)
  const u = suffix(s, ', unless ')
  if (!u) return undefined
  const unless = u.conds
  let m = BEFORE.exec(u.head)
  if (m) {
    const w = suffix(m[2]!, ', only when ')
    if (!w) return undefined
    let body = w.head
    let guard: Guard | undefined
    for (const g of Object.keys(GUARDS) as Guard[]) {
      if (body.endsWith(GUARDS[g])) {
        guard = g
        body = body.slice(0, -GUARDS[g].length)
        break
      }
    }
    const calls = preCalls(body)
    if (!calls) return undefined
    return withConds(guard ? {kind: 'before', tool: m[1]!, calls, guard} : {kind: 'before', tool: m[1]!, calls}, w.conds, unless)
  }
  m = ON_ERROR.exec(u.head)
  if (m) {
    const calls = sequence(m[4]!)
    const when = m[3] === undefined ? undefined : parseConditions(m[3])
    if (!calls || (m[3] !== undefined && !when)) return undefined
    return withConds({kind: 'on_error', tool: m[1]!, code: m[2]!, calls, stop: Boolean(m[5])}, when, unless)
  }
  m = ON_RESULT.exec(u.head)
  if (m) {
    const result = keyOf(RESULTS, m[2]!)
    const calls = sequence(m[4]!)
    const when = m[3] === undefined ? undefined : parseConditions(m[3])
    if (!result || !calls || (m[3] !== undefined && !when)) return undefined
    return withConds({kind: 'on_result', tool: m[1]!, result, calls, stop: Boolean(m[5])}, when, unless)
  }
  return undefined
}

function never(s: string): Rule | undefined {
  const m = NEVER.exec(s)
  if (!m) return undefined
  const state = m[2] === undefined ? undefined : keyOf(STATES, m[2])
  const when = m[3] === undefined ? undefined : parseConditions(m[3])
  const unless = m[4] === undefined ? undefined : parseConditions(m[4])
  if ((m[2] !== undefined && !state) || (m[3] !== undefined && !when) || (m[4] !== undefined && !unless)) return undefined
  return withConds(state ? {kind: 'never', tool: m[1]!, while: state} : {kind: 'never', tool: m[1]!}, when, unless)
}

/** Every rule of a SKILL.md, in order; frontmatter and lines of no known form are skipped. */
export function parseRules(skillMarkdown: string): Rule[] {
  const body = skillMarkdown.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '')
  const out: Rule[] = []
  for (const line of body.split(/\r?\n/)) {
    const r = parseRule(line)
    if (r) out.push(r)
  }
  return out
}

/**
 * Whether a rule can be written into a skill: it renders as one line that reads back as the
 * same rule. A rule of a knowledge record is data of any lane: a condition value with a line
 * break or a backtick renders as text that is not that rule (or as several lines of Markdown).
 */
export function writable(rule: Rule): boolean {
  const line = renderRule(rule)
  if (/[\r\n\u2028\u2029]/.test(line)) return false
  const back = parseRule(line)
  return back !== undefined && renderRule(back) === line
}
