import type {Ledger} from '../store/index.js'
import type {ExpRecord} from '../records/index.js'
import type {Rule} from '../knowledge/index.js'

export interface KnowledgeItem {
  record: ExpRecord<'knowledge'>
  rule?: Rule
  lamport: number
}

/** The current beliefs: knowledge records no later knowledge record supersedes, in ledger order. */
export function currentKnowledge(ledger: Ledger): KnowledgeItem[] {
  const all = ledger.select({kinds: ['knowledge']}).map(e => ({record: ledger.load<'knowledge'>(e), lamport: e.lamport}))
  const superseded = new Set(all.flatMap(k => k.record.body.supersedes))
  return all.filter(k => !superseded.has(k.record.id)).map(k => ({...k, rule: k.record.body.rule}))
}

/** A stable key of a rule (what "the same rule" means when comparing with a skill): its canonical line. */
export {ruleKey} from '../knowledge/index.js'
