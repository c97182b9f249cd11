import type {RecallBody} from '../records/types.js'
import type {KnowledgeItem} from './knowledge.js'
import {ruleKey} from './knowledge.js'
import {renderConditions, triggerOf, writable, type Rule} from '../knowledge/index.js'

export interface RecallOptions {
  skill: string
  workflows: readonly string[]
  /** rules already in the skill: recalling them again is not novel */
  present: readonly Rule[]
  items: number
  tokens: number
  purpose?: string
}

/** Weights of the score breakdown (docs/loop.md, "Propose"): score = Σ weights · parts − redundancy. */
export const RECALL_WEIGHTS = {relevance: 1, support: 1, confidence: 2, recency: 0.5, novelty: 2, redundancy: 1}

const tokensOf = (text: string) => Math.ceil(text.length / 4)

/**
 * A rule may be proposed only when every counterexample is explained (docs/mining.md): a
 * claim recorded before the miner checked (format 1) has not been.
 */
export function explained(b: {unexplained?: readonly string[]}): boolean {
  return Array.isArray(b.unexplained) && b.unexplained.length === 0
}
const round = (x: number) => Math.round(x * 1e4) / 1e4

/**
 * The bounded, cited context for one proposal (pure): knowledge scoped to the skill's
 * workflows, ranked deterministically with a score breakdown, cut to an item and a token
 * budget. Ties break on slug then id, so every clone ranks alike. Left out, with the reason:
 * a rule whose counterexamples are not all explained, a finding without a rule (for a
 * proposal), a rule that does not render as one line reading back as itself, and a claim
 * about a situation (trigger and conditions) a higher-ranked claim already answers.
 */
export function buildRecall(knowledge: readonly KnowledgeItem[], o: RecallOptions): {body: RecallBody; cites: string[]} {
  const scope = new Set(o.workflows)
  const present = new Set(o.present.map(ruleKey))
  const maxLamport = Math.max(1, ...knowledge.map(k => k.lamport))
  const maxSupport = Math.max(1, ...knowledge.map(k => k.record.body.statistics.support))
  const excluded: RecallBody['excluded'] = []
  const scored: {k: KnowledgeItem; parts: {relevance: number; support: number; confidence: number; recency: number; novelty: number}}[] = []
  for (const k of knowledge) {
    const b = k.record.body
    const overlap = b.scope.workflows.filter(w => scope.has(w)).length
    if (scope.size && b.scope.workflows.length && !overlap) {
      excluded.push({knowledge: k.record.id, reason: 'out of scope'})
      continue
    }
    if (b.status === 'rejected' || b.status === 'deprecated') {
      excluded.push({knowledge: k.record.id, reason: `status ${b.status}`})
      continue
    }
    // the proposer writes rules: a finding without one (a failure mode, a bad sequence) is for readers
    if (!b.rule && (o.purpose ?? 'propose') === 'propose') {
      excluded.push({knowledge: k.record.id, reason: 'no rule to propose'})
      continue
    }
    // (a rule is data of any lane: one whose line would not read back as itself is never written into a skill)
    if (b.rule && !writable(b.rule)) {
      excluded.push({knowledge: k.record.id, reason: 'its rule does not render as one line of the rule language that reads back as itself (a value with a line break or a backtick)'})
      continue
    }
    if (b.rule && !explained(b)) {
      excluded.push({knowledge: k.record.id, reason: b.unexplained ? `${b.unexplained.length} counterexample(s) its conditions do not explain` : 'counterexamples never checked for an explanation (format 1)'})
      continue
    }
    const relevance = b.scope.workflows.length ? overlap / b.scope.workflows.length : 0.5
    const support = b.statistics.support / maxSupport
    const recency = k.lamport / maxLamport
    const novelty = k.rule && present.has(ruleKey(k.rule)) ? 0 : 1
    scored.push({k, parts: {relevance: round(relevance), support: round(support), confidence: round(b.confidence), recency: round(recency), novelty}})
  }
  const key = (x: (typeof scored)[number]) => RECALL_WEIGHTS.relevance * x.parts.relevance + RECALL_WEIGHTS.support * x.parts.support + RECALL_WEIGHTS.confidence * x.parts.confidence + RECALL_WEIGHTS.recency * x.parts.recency + RECALL_WEIGHTS.novelty * x.parts.novelty
  scored.sort((a, b) => key(b) - key(a) || (a.k.record.body.slug < b.k.record.body.slug ? -1 : a.k.record.body.slug > b.k.record.body.slug ? 1 : 0) || (a.k.record.id < b.k.record.id ? -1 : 1))
  const items: RecallBody['items'] = []
  const triggers = new Map<string, number>()
  // one claim per situation (a trigger and its conditions): other answers to it cannot go into
  // one patch with it, and would only take the budget from other situations
  const situations = new Map<string, string>()
  let tokens = 0
  for (const x of scored) {
    const text = x.k.record.body.claim.text
    const t = tokensOf(text)
    const r = x.k.rule
    const situation = r ? `${triggerOf(r)}|${[r.when, r.unless].map(c => (c?.length ? renderConditions(c) : '')).join('|')}` : undefined
    if (situation && situations.has(situation)) {
      excluded.push({knowledge: x.k.record.id, reason: `another answer to the same situation ranks higher (${situations.get(situation)})`})
      continue
    }
    if (items.length >= o.items || tokens + t > o.tokens) {
      excluded.push({knowledge: x.k.record.id, reason: items.length >= o.items ? 'item budget' : 'token budget'})
      continue
    }
    // redundancy: how many higher-ranked items are about the same tool
    const trigger = x.k.rule?.tool ?? x.k.record.body.slug
    const redundancy = round(Math.min(1, (triggers.get(trigger) ?? 0) * 0.5))
    triggers.set(trigger, (triggers.get(trigger) ?? 0) + 1)
    // a rule the skill already has does not answer its situation for the knowledge after it: a
    // later answer may replace it (the proposer decides, src/loop/proposer.ts)
    if (situation && x.parts.novelty) situations.set(situation, x.k.record.id)
    tokens += t
    items.push({knowledge: x.k.record.id, rank: items.length + 1, score: round(key(x) - RECALL_WEIGHTS.redundancy * redundancy), breakdown: {...x.parts, redundancy}, tokens: t, text})
  }
  const body: RecallBody = {
    purpose: o.purpose ?? 'propose',
    scope: {skill: o.skill, workflows: [...o.workflows].sort()},
    budget: {items: o.items, tokens: o.tokens},
    used: {items: items.length, tokens},
    snapshot: {lamport: maxLamport === 1 && !knowledge.length ? 0 : maxLamport, knowledge: knowledge.length},
    items,
    excluded: excluded.sort((a, b) => (a.knowledge < b.knowledge ? -1 : 1)),
  }
  return {body, cites: items.map(i => i.knowledge)}
}
