import type {Ledger} from '../store/index.js'
import type {ExpRecord} from '../records/index.js'
import type {Rule} from '../knowledge/index.js'
import {supersededIds} from '../mining/index.js'

export interface KnowledgeItem {
  record: ExpRecord<'knowledge'>
  rule?: Rule
  lamport: number
}

/**
 * The current beliefs: knowledge records no other knowledge record supersedes, in ledger
 * order. A supersedes counts only when the newer record carries the older one's evidence
 * forward (mining/knowledge.ts supersededIds): another lane cannot hide knowledge by naming it.
 */
export function currentKnowledge(ledger: Ledger): KnowledgeItem[] {
  const all = ledger.select({kinds: ['knowledge']}).map(e => ({record: ledger.load<'knowledge'>(e), lamport: e.lamport}))
  const superseded = supersededIds(all.map(k => k.record))
  return all.filter(k => !superseded.has(k.record.id)).map(k => ({...k, rule: k.record.body.rule}))
}

/** A stable key of a rule (what "the same rule" means when comparing with a skill): its canonical line. */
export {ruleKey} from '../knowledge/index.js'
