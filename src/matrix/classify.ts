import type {Rule} from '../knowledge/index.js'

/**
 * The rule classifier of `exp matrix` (docs/matrix.md, "Rule classes"): five
 * classes, decided by a fixed procedure over measured effects, never by judgement. For each
 * rule of an evolved skill and each executor, two paired runs on validation against the skill
 * as it is: the skill without the rule (the rule's credit: skill − without) and the skill with
 * the rule reworded (the same rule without its final period, which the rule grammar still
 * reads; its cost: skill − reworded). A rule helps an executor when its credit is > 0; it
 * helps only by its wording there when the reworded skill does no better than the skill
 * without it. Then, in this order:
 *
 * 1. helps no executor: classed by what it says (below), "no measured effect";
 * 2. helps some executor, and only by its wording wherever it helps: prompt-format hack;
 * 3. helps exactly one executor of two or more: model compensation (of that executor);
 * 4. helps every executor: environment knowledge when it names a world fact, else general procedure;
 * 5. helps two or more but not all: tool-specific procedure when it is a procedure about one
 *    tool (`Before T` / `Never T`), else environment knowledge or general procedure as in 4.
 *
 * A world fact is something the world says, not the agent: an error code, a result condition,
 * a field condition (`when`/`unless`), a workflow state (`while`), or a guard that reads world
 * data (in stock, an open ticket with the same subject, every item held).
 */
export const RULE_CLASSES = ['environment knowledge', 'general procedure', 'tool-specific procedure', 'model compensation', 'prompt-format hack'] as const
export type RuleClass = (typeof RULE_CLASSES)[number]

export interface ExecutorEffect {
  executor: string
  /** skill − skill without the rule (success, 0..1), with its paired 95% interval */
  credit: number
  ci: [number, number]
  /** skill − skill with the rule reworded */
  reworded: number
  episodes: number
  evaluations: {without: string; reworded: string}
}

export interface ClassifiedRule {
  line: number
  text: string
  rule: string
  class: RuleClass
  reason: string
  /** executors it helps (credit > 0) */
  helps: string[]
  /** executors where it helps only by its wording */
  format_only: string[]
  world_facts: string[]
  measured: boolean
  effects: ExecutorEffect[]
}

const num = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`
const pts = (x: number) => `${num(x)} points`

/** What a rule says about the world rather than about the agent (see above). */
export function worldFacts(r: Rule): string[] {
  const out: string[] = []
  if (r.kind === 'on_error') out.push(`error code ${r.code}`)
  if (r.kind === 'on_result') out.push(`result condition "${r.result}"`)
  if (r.kind === 'never' && r.while) out.push(`workflow state "${r.while}"`)
  if (r.kind === 'before' && r.guard) out.push(`guard "${r.guard}"`)
  for (const c of [...(r.when ?? []), ...(r.unless ?? [])]) out.push(`field ${c.source}.${c.field}`)
  return out
}

function byContent(r: Rule, facts: readonly string[]): RuleClass {
  if (facts.length) return 'environment knowledge'
  return r.kind === 'before' || r.kind === 'never' ? 'tool-specific procedure' : 'general procedure'
}

export function classifyRule(input: {line: number; text: string; rule: Rule; canonical: string; source: string; effects: readonly ExecutorEffect[]}): ClassifiedRule {
  const {rule, effects, source} = input
  const facts = worldFacts(rule)
  const helps = effects.filter(e => e.credit > 0)
  const formatOnly = helps.filter(e => e.reworded >= e.credit)
  const all = effects.map(e => e.executor)
  const base = {line: input.line, text: input.text, rule: input.canonical, helps: helps.map(e => e.executor), format_only: formatOnly.map(e => e.executor), world_facts: facts, effects: [...effects]}
  const cite = (e: ExecutorEffect) => `${e.executor} ${num(e.credit)} [${num(e.ci[0])}, ${num(e.ci[1])}] points`
  const factText = facts.length ? `it names ${facts.join(', ')}` : 'it names no world fact'
  if (!helps.length) {
    const c = byContent(rule, facts)
    return {...base, class: c, measured: false, reason: `no measured effect: removing it costs no executor anything (${effects.map(cite).join('; ')}); classed by what it says: ${factText}${c === 'tool-specific procedure' ? `, a procedure about \`${rule.tool}\`` : ''}`}
  }
  if (formatOnly.length === helps.length) {
    return {...base, class: 'prompt-format hack', measured: true, reason: `it helps ${helps.map(cite).join('; ')}, but the same rule reworded (no final period) does no better than no rule there (${formatOnly.map(e => `${e.executor} reworded ${pts(e.credit - e.reworded)}`).join('; ')}): its wording, not its content, does the work`}
  }
  if (helps.length === 1 && all.length >= 2) {
    const e = helps[0]!
    const who = e.executor === source ? 'its source executor only' : `only ${e.executor}, not its source ${source}`
    return {...base, class: 'model compensation', measured: true, reason: `it helps ${who} (${cite(e)}); the others lose nothing without it (${effects.filter(x => x !== e).map(cite).join('; ')})`}
  }
  if (helps.length === all.length) {
    const c: RuleClass = facts.length ? 'environment knowledge' : 'general procedure'
    return {...base, class: c, measured: true, reason: `it helps every executor (${helps.map(cite).join('; ')}) and ${factText}`}
  }
  const c: RuleClass = rule.kind === 'before' || rule.kind === 'never' ? 'tool-specific procedure' : facts.length ? 'environment knowledge' : 'general procedure'
  const rest = effects.filter(e => e.credit <= 0)
  return {...base, class: c, measured: true, reason: `it helps ${helps.map(cite).join('; ')} but not ${rest.map(cite).join('; ')}; ${c === 'tool-specific procedure' ? `a procedure about \`${rule.tool}\` that some executors already follow` : factText}`}
}

/** H4 (docs/matrix.md): some skills transfer between models, others are model-specific compensation. */
export interface H4 {
  verdict: 'supported' | 'not supported'
  statement: string
  evidence: string[]
}

export function stateH4(rules: readonly (ClassifiedRule & {source: string})[], cells: readonly {source: string; executor: string; rate: number; ci: [number, number]}[]): H4 {
  const statement = 'H4: some skills transfer between models, while others represent model-specific compensation.'
  const count = (c: RuleClass) => rules.filter(r => r.class === c && r.measured).length
  const transfer = rules.filter(r => r.measured && r.helps.length >= 2)
  const compensation = rules.filter(r => r.measured && r.class === 'model compensation')
  const evidence = [
    `${rules.length} rule(s) in ${new Set(rules.map(r => r.source)).size} evolved skill(s): ${[...new Set(rules.map(r => r.class))].map(c => `${rules.filter(r => r.class === c).length} ${c}`).join(', ')}; ${rules.filter(r => !r.measured).length} with no measured effect`,
    `${transfer.length} rule(s) help two or more executors (${count('environment knowledge')} environment knowledge, ${count('general procedure')} general procedure, ${count('tool-specific procedure')} tool-specific procedure among the measured)`,
    `${compensation.length} rule(s) help exactly one executor (model compensation)${compensation.length ? `: ${compensation.slice(0, 3).map(r => `"${r.rule}" (from ${r.source}, helps ${r.helps[0]})`).join('; ')}` : ''}`,
  ]
  const sources = [...new Set(cells.map(c => c.source))]
  for (const s of sources) {
    const row = cells.filter(c => c.source === s)
    const own = row.find(c => c.executor === s)
    const others = row.filter(c => c.executor !== s)
    if (own && others.length) evidence.push(`skill from ${s}: ${(own.rate * 100).toFixed(1)}% on its own executor, ${others.map(c => `${(c.rate * 100).toFixed(1)}% on ${c.executor}`).join(', ')}`)
  }
  const supported = transfer.length > 0 && compensation.length > 0
  return {verdict: supported ? 'supported' : 'not supported', statement, evidence: [...evidence, supported ? 'both kinds are present: some rules transfer, some compensate for one executor' : transfer.length ? 'no rule helps one executor only: nothing here is model-specific compensation' : 'no rule helps two executors or more: nothing here is shown to transfer']}
}
