import type {RecordStore} from '../store/index.js'
import type {Ledger} from '../store/index.js'
import {sha256Hex} from '../records/digest.js'
import {parseRules, renderRule} from '../knowledge/index.js'
import type {SkillText} from '../agents/types.js'
import {recalls, type MemoryMode, type RecallContext, type RunMemory} from '../evals/runner/memory.js'
import {currentKnowledge, type KnowledgeItem} from './knowledge.js'
import {buildRecall} from './recall.js'

export interface RunRecallOptions {
  mode: MemoryMode
  /** the skill the agent runs (its rules are "present": recalling them again is not novel) */
  skill: SkillText
  lane: string
  budget: {items: number; tokens: number}
  /** recall only knowledge recorded up to this ledger position (a frozen snapshot) */
  until?: number
  now?: () => Date
}

/**
 * The knowledge the skill's runs may recall, from this ledger (a namespaced store gives an
 * arm's own only): current, scoped to the skill, no later than `until`.
 */
export function recallable(ledger: Ledger, skill: string, until?: number): KnowledgeItem[] {
  return currentKnowledge(ledger).filter(k => (until === undefined || k.lamport <= until) && (!k.record.body.scope.skills?.length || k.record.body.scope.skills.includes(skill)))
}

/** The text the agent reads: one line per recalled item, a rule in its canonical words (which the scripted agent follows), else the claim. */
export function recallText(recallId: string, items: readonly KnowledgeItem[]): string {
  const lines = items.map(k => `- ${k.rule ? renderRule(k.rule) : k.record.body.claim.text.replace(/\s+/g, ' ')}`)
  return `# Recalled knowledge\n\nLessons from earlier verified runs (recall ${recallId}); follow them where they apply.\n\n${lines.join('\n')}\n`
}

/**
 * The memory of one run (docs/compare.md): with a recalling mode, a recall record (bounded,
 * ranked, cited: src/loop/recall.ts) appended on the lane, and its items as the text the
 * agent reads next to the skill; the manifest pins the recall, its knowledge and the text's
 * digest. Without one, only the mode.
 */
export async function recallForRun(store: RecordStore, o: RunRecallOptions): Promise<RunMemory> {
  if (!recalls(o.mode)) return {mode: o.mode}
  const ledger = await store.ledger()
  const name = o.skill.name
  const knowledge = recallable(ledger, name, o.until)
  const workflows = [...new Set(knowledge.flatMap(k => k.record.body.scope.workflows))].sort()
  const r = buildRecall(knowledge, {skill: name, workflows, present: parseRules(o.skill.content), items: o.budget.items, tokens: o.budget.tokens, purpose: 'execute'})
  // nothing to recall: the manifest pins the mode alone (an empty context is the same in every namespace)
  if (!r.body.items.length) return {mode: o.mode}
  const recall = (await store.append({kind: 'recall', body: r.body, cites: r.cites}, {lane: o.lane, ...(o.now ? {now: o.now} : {})})).id
  const byId = new Map(knowledge.map(k => [k.record.id, k]))
  const items = r.body.items.map(i => byId.get(i.knowledge)!)
  const text = recallText(recall, items)
  const context: RecallContext = {recall, knowledge: items.map(k => k.record.id), text, digest: `sha256:${sha256Hex(text)}`}
  return {mode: o.mode, context}
}
