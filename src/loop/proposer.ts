import {parseRule, parseRules, renderConditions, renderRule, triggerOf, type Rule} from '../knowledge/index.js'
import {parseSkill, renderPatch, type SkillPatch, type RenderedPatch} from '../skills/index.js'
import type {RecallBody} from '../records/types.js'
import type {KnowledgeItem} from './knowledge.js'
import {ruleKey} from './knowledge.js'
import {explained} from './recall.js'

export const PROPOSER = {name: 'deterministic', version: '1'}

/** An earlier proposal that was rejected: its normalized patch and the knowledge it cited. */
export interface RejectedPatch {
  normalized: string
  knowledge: readonly string[]
  /** it changed no validation outcome at all (no win, no loss): its knowledge is inert there */
  inert?: boolean
}

export interface ProposeInput {
  skill: string
  /** SKILL.md as deployed on main */
  text: string
  recall: RecallBody
  knowledge: ReadonlyMap<string, KnowledgeItem>
  rejected: readonly RejectedPatch[]
  /** rules per proposal (the first candidate tried; smaller ones follow) */
  maxRules?: number
  section?: string
  path?: string
}

export interface ProposedPatch {
  patch: SkillPatch
  rendered: RenderedPatch
  rules: Rule[]
  knowledge: string[]
  reason: string
}

/**
 * Candidate rule sets in the order they are tried: the top-k together, then its halves, their
 * halves and so on (breadth first, the better-ranked half first), then each of the rest alone.
 * A set rejected for one rule that does harm is followed by a set without it after a few
 * tries, not after one try per rule, and every set still holds as many rules as the split
 * allows: one candidate's large effect shows in fewer episodes than several small ones.
 */
export function candidates<T>(items: readonly T[], k: number): T[][] {
  const out: T[][] = []
  const seen = new Set<string>()
  const push = (from: number, to: number) => {
    const key = `${from}:${to}`
    if (to <= from || seen.has(key)) return
    seen.add(key)
    out.push(items.slice(from, to))
  }
  let level: [number, number][] = [[0, Math.min(k, items.length)]]
  while (level.length) {
    const next: [number, number][] = []
    for (const [from, to] of level) {
      push(from, to)
      if (to - from > 1) {
        const mid = from + Math.ceil((to - from) / 2)
        next.push([from, mid], [mid, to])
      }
    }
    level = next
  }
  for (let i = Math.min(k, items.length); i < items.length; i++) push(i, i + 1)
  return out
}

/**
 * The deterministic proposer: recalled knowledge with a rule the skill does not already
 * follow becomes procedure lines, rendered in the skill's rule language. It never proposes
 * a patch equal (after normalization) to a rejected one unless it cites knowledge the
 * rejected one did not (new evidence), and leaves out knowledge whose rejected patch was
 * inert (no validation outcome changed) and rules with counterexamples nothing explains.
 * Returns undefined when there is nothing new.
 */
export function proposePatch(input: ProposeInput): ProposedPatch | undefined {
  const present = new Set(parseRules(input.text).map(ruleKey))
  // knowledge that already sat in a patch that changed nothing is not tried again in any
  // combination; a newer record about the same rule (new evidence) is
  const inert = new Set(input.rejected.filter(r => r.inert).flatMap(r => r.knowledge))
  const usable = input.recall.items
    .map(i => input.knowledge.get(i.knowledge))
    .filter((k): k is KnowledgeItem => !!k && !!k.rule && explained(k.record.body) && !present.has(ruleKey(k.rule)) && !inert.has(k.record.id))
  // per trigger, one unit: the best-ranked rule without conditions and one rule with conditions
  // (a case the plain rule answers differently; the agent follows the most specific rule that
  // speaks, so the two do not speak over each other), never a situation the skill already
  // answers. Of the rules with conditions, the one whose supporting runs hold most of the plain
  // rule's counterexamples (the case where the plain rule goes wrong), else the best-ranked.
  const situation = (r: Rule) => `${triggerOf(r)}|${[r.when, r.unless].map(c => (c?.length ? renderConditions(c) : '')).join('|')}`
  const conditioned = (r: Rule) => !!(r.when?.length || r.unless?.length)
  const lines = ruleLines(input.text)
  // a rule of the skill is replaced by knowledge about its situation that the miner found after
  // the last knowledge backing the rule: the miner keeps one rule per situation, so a later
  // record about it is the miner's later word, from runs that followed the rule and (with
  // exploration) runs that did not (docs/loop.md, "Exploration"); a line no knowledge backs
  // (written by a person) is never replaced
  const latest = new Map<string, number>()
  for (const k of input.knowledge.values()) if (k.rule) latest.set(ruleKey(k.rule), Math.max(latest.get(ruleKey(k.rule)) ?? -1, k.lamport))
  const replaces = new Map<string, RuleLine>()
  const byTrigger = new Map<string, KnowledgeItem[]>()
  for (const k of usable) {
    const line = lines.find(x => situation(x.rule) === situation(k.rule!))
    if (line) {
      const backed = latest.get(ruleKey(line.rule))
      if (backed === undefined || backed >= k.lamport || [...replaces.values()].includes(line)) continue
      replaces.set(k.record.id, line)
    }
    byTrigger.set(triggerOf(k.rule!), [...(byTrigger.get(triggerOf(k.rule!)) ?? []), k])
  }
  const items = [...byTrigger.values()].map(list => {
    const plain = list.find(k => !conditioned(k.rule!))
    const against = new Set(plain?.record.body.evidence.counterexamples ?? [])
    const covers = (k: KnowledgeItem) => k.record.body.evidence.supporting_runs.filter(id => against.has(id)).length
    const cases = list.filter(k => conditioned(k.rule!))
    const best = Math.max(0, ...cases.map(covers))
    const specific = cases.find(k => covers(k) === best)
    // the specific case first, as a reader expects it
    return [specific, plain].filter((k): k is KnowledgeItem => !!k)
  })
  for (const chosen of candidates(items, input.maxRules ?? 3)) {
    const set = chosen.flat()
    const patch: SkillPatch = {
      skill: input.skill,
      edits: set.map(k => {
        const old = replaces.get(k.record.id)
        const common = {lines: [renderRule(k.rule!)], reason: reasonOf(k), knowledge: [k.record.id]}
        return old ? {op: 'replace', section: old.section, anchor: old.anchor, ...common} : {op: 'append', section: input.section ?? 'Procedure', ...common}
      }),
    }
    const rendered = renderPatch(input.text, patch, {path: input.path})
    const ids = set.map(k => k.record.id)
    const repeat = input.rejected.some(r => r.normalized === rendered.normalized && ids.every(id => r.knowledge.includes(id)))
    if (repeat) continue
    return {patch, rendered, rules: set.map(k => k.rule!), knowledge: ids, reason: set.map(reasonOf).join(' ')}
  }
  return undefined
}

/** A line of the skill in the rule language: its rule, and where a patch finds it. */
interface RuleLine {
  rule: Rule
  section: string
  /** the line as written, without its list marker */
  anchor: string
}

function ruleLines(text: string): RuleLine[] {
  const out: RuleLine[] = []
  for (const s of parseSkill(text).sections) {
    for (const line of s.lines.slice(1)) {
      const rule = parseRule(line)
      if (rule) out.push({rule, section: s.title, anchor: line.trim().replace(/^(?:[-*+]|\d+[.)])\s+/, '')})
    }
  }
  return out
}

function reasonOf(k: KnowledgeItem): string {
  const b = k.record.body
  return `${b.slug}: ${b.statistics.support} supporting, ${b.statistics.failures} counter runs (confidence ${b.confidence.toFixed(2)}).`
}
