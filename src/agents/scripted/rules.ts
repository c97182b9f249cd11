/**
 * The rule language of the scripted agent (docs/scripted-agent.md). A skill line the agent
 * understands is one of four sentence forms, parameterized by tool names and error codes
 * (in backticks) and by a small closed vocabulary of conditions:
 *
 *   Before `T`, call `A`[, `B`…][ and `C`][ when the policy requires it][ <guard>].
 *   If `T` fails with `CODE`, call `A`[, then `B`…][ and stop].
 *   If `T` returns <result>, call `A`[, then `B`…][ and stop].
 *   Never call `T`[ while <state>].
 *
 * renderRule writes the one canonical line of a rule; parseRules(renderRule(r)) gives r
 * back exactly. Lines that match no form are ignored.
 */

/** Closed vocabularies: id → the exact English phrase. */
export const WHEN = {policy_requires: 'the policy requires it'} as const
export const GUARDS = {
  in_stock: ' and only assign a model that is in stock',
  reuse_open: ' and reuse an open ticket with the same subject',
  each_held: ' for every item the employee holds',
} as const
export const RESULTS = {
  pending_info: 'pending information',
  multiple_matches: 'more than one match',
  no_match: 'no match',
  contradicts_task: 'a record that contradicts the task',
} as const
export const STATES = {
  open_blockers: 'the workflow has open blockers',
  holds_items: 'the employee still holds devices or access',
} as const

export type When = keyof typeof WHEN
export type Guard = keyof typeof GUARDS
export type ResultCondition = keyof typeof RESULTS
export type StateCondition = keyof typeof STATES

export interface PreCall {
  tool: string
  when?: When
}

export type Rule =
  | {kind: 'before'; tool: string; calls: PreCall[]; guard?: Guard}
  | {kind: 'on_error'; tool: string; code: string; calls: string[]; stop: boolean}
  | {kind: 'on_result'; tool: string; result: ResultCondition; calls: string[]; stop: boolean}
  | {kind: 'never'; tool: string; while?: StateCondition}

const TOOL = '`([a-z][a-z0-9_]*)`'
const tick = (t: string) => `\`${t}\``

function joinAnd(parts: string[]): string {
  return parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`
}

export function renderRule(r: Rule): string {
  switch (r.kind) {
    case 'before': {
      const calls = joinAnd(r.calls.map(c => tick(c.tool) + (c.when ? ` when ${WHEN[c.when]}` : '')))
      return `Before ${tick(r.tool)}, call ${calls}${r.guard ? GUARDS[r.guard] : ''}.`
    }
    case 'on_error':
      return `If ${tick(r.tool)} fails with ${tick(r.code)}, call ${r.calls.map(tick).join(', then ')}${r.stop ? ' and stop' : ''}.`
    case 'on_result':
      return `If ${tick(r.tool)} returns ${RESULTS[r.result]}, call ${r.calls.map(tick).join(', then ')}${r.stop ? ' and stop' : ''}.`
    case 'never':
      return `Never call ${tick(r.tool)}${r.while ? ` while ${STATES[r.while]}` : ''}.`
  }
}

const keyOf = <T extends Record<string, string>>(vocab: T, phrase: string): keyof T | undefined =>
  (Object.keys(vocab) as (keyof T)[]).find(k => vocab[k] === phrase)

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

const BEFORE = new RegExp(`^Before ${TOOL}, call (.+)$`)
const ON_ERROR = new RegExp(`^If ${TOOL} fails with \`([A-Z][A-Z0-9_]*)\`, call (.+?)( and stop)?$`)
const ON_RESULT = new RegExp(`^If ${TOOL} returns (.+?), call (\`.+?)( and stop)?$`)
const NEVER = new RegExp(`^Never call ${TOOL}(?: while (.+))?$`)

/** Parse one line (list markers, surrounding spaces and the final period are optional). */
export function parseRule(line: string): Rule | undefined {
  const s = line.trim().replace(/^(?:[-*+]|\d+[.)])\s+/, '').replace(/\.$/, '')
  let m = BEFORE.exec(s)
  if (m) {
    let body = m[2]!
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
    return guard ? {kind: 'before', tool: m[1]!, calls, guard} : {kind: 'before', tool: m[1]!, calls}
  }
  m = ON_ERROR.exec(s)
  if (m) {
    const calls = sequence(m[3]!)
    return calls && {kind: 'on_error', tool: m[1]!, code: m[2]!, calls, stop: Boolean(m[4])}
  }
  m = ON_RESULT.exec(s)
  if (m) {
    const result = keyOf(RESULTS, m[2]!)
    const calls = sequence(m[3]!)
    return result && calls && {kind: 'on_result', tool: m[1]!, result, calls, stop: Boolean(m[4])}
  }
  m = NEVER.exec(s)
  if (m) {
    if (m[2] === undefined) return {kind: 'never', tool: m[1]!}
    const state = keyOf(STATES, m[2])
    return state && {kind: 'never', tool: m[1]!, while: state}
  }
  return undefined
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
