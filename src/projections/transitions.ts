import type {Ledger} from '../store/index.js'
import {derivations} from './hypotheses.js'
import {researchIndex, type IndexOptions} from './research.js'
import type {StatusStep, TransitionProblem} from './types.js'

export interface TransitionReport {
  hypotheses: number
  /** each hypothesis' status sequence, in ledger order */
  histories: Record<string, StatusStep[]>
  problems: TransitionProblem[]
}

/**
 * Replay every hypothesis and list the illegal transitions in ledger order: what `exp
 * fsck` reports beside the store-level checks. Private lanes are included by default
 * here (a check, unlike a shared view, should see everything this clone has).
 */
export function checkTransitions(ledger: Ledger, now: Date, opts: IndexOptions = {includePrivate: true}): TransitionReport {
  const ix = researchIndex(ledger, opts)
  const histories: Record<string, StatusStep[]> = {}
  const problems: TransitionProblem[] = []
  for (const {linked: l, hypothesis, as} of ix.dangling) {
    problems.push({rule: 'unknown_hypothesis', hypothesis, record: l.entry.id, lane: l.entry.lane, ref: l.entry.ref, commit: l.entry.commit, message: as === 'parent' ? `${l.entry.kind} ${l.entry.id} names ${hypothesis} as its parent, which is not a hypothesis in the ledger` : `${l.entry.kind} ${l.entry.id} names hypothesis ${hypothesis}, which is not in the ledger`})
  }
  for (const d of derivations(ix, now)) {
    histories[d.view.id] = d.view.history
    problems.push(...d.problems)
  }
  const pos = new Map(ledger.entries.map((e, i) => [e.id, i]))
  problems.sort((a, b) => pos.get(a.record)! - pos.get(b.record)! || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0))
  return {hypotheses: ix.hypotheses.size, histories, problems}
}
