import {onLane, type Ledger} from '../store/index.js'
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
 * With `lane`, a slug that lane holds a current claim of is its claim alone.
 */
export function currentKnowledge(ledger: Ledger, lane?: string): KnowledgeItem[] {
  const entries = ledger.select({kinds: ['knowledge']})
  const all = entries.map(e => ({record: ledger.load<'knowledge'>(e), lamport: e.lamport}))
  const superseded = supersededIds(all.map(k => k.record))
  const current = all.filter(k => !superseded.has(k.record.id))
  if (lane === undefined) return current.map(k => ({...k, rule: k.record.body.rule}))
  // a slug the lane holds a current claim of is the lane's: another lane's claim of it (its own
  // words, scope and status on the lane's runs, written first) once reached the lane's recall
  const own = new Set(entries.filter((e, i) => !superseded.has(all[i]!.record.id) && onLane(ledger, e, lane)).map(e => e.id))
  const ownSlugs = new Set(current.filter(k => own.has(k.record.id)).map(k => k.record.body.slug))
  return current.filter(k => own.has(k.record.id) || !ownSlugs.has(k.record.body.slug)).map(k => ({...k, rule: k.record.body.rule}))
}

/** A stable key of a rule (what "the same rule" means when comparing with a skill): its canonical line. */
export {ruleKey} from '../knowledge/index.js'
