import type {EvidenceBody} from '../records/types.js'
import type {Ledger} from '../store/index.js'

/**
 * Counts an evidence record states that are not the runs it lists, else undefined (pure).
 * The relation is exact by design: the miner writes `support` as the number of its
 * `supporting` runs and `failures` as the number of its `counterexamples` (src/mining/evidence.ts,
 * docs/mining.md), and the schema lists each run once. Any other number comes from no mining:
 * a lane once wrote 9007199254740991 for both beside 51 and 31 runs, and the report showed
 * it as what the loop had mined.
 */
export function evidenceCountsProblem(b: Pick<EvidenceBody, 'support' | 'failures' | 'supporting' | 'counterexamples'>): string | undefined {
  const wrong: string[] = []
  if (b.support !== b.supporting.length) wrong.push(`support ${b.support} is not the ${b.supporting.length} supporting run(s) it cites`)
  if (b.failures !== b.counterexamples.length) wrong.push(`failures ${b.failures} is not the ${b.counterexamples.length} counterexample(s) it cites`)
  return wrong.length ? wrong.join('; ') : undefined
}

export interface EvidenceProblem {
  id: string
  lane: string
  ref: string
  commit: string
  reason: string
}

/**
 * The evidence records of the ledger whose counts are not the runs they cite, in ledger
 * order: what `exp fsck` names as `inconsistent_evidence` (the reports leave them out).
 * Private lanes are included by default (a check sees everything this clone has).
 */
export function inconsistentEvidence(ledger: Ledger, o: {includePrivate?: boolean} = {includePrivate: true}): EvidenceProblem[] {
  const out: EvidenceProblem[] = []
  for (const e of ledger.select({kinds: ['evidence'], includePrivate: o.includePrivate ?? true})) {
    const reason = evidenceCountsProblem(ledger.load<'evidence'>(e).body)
    if (reason) out.push({id: e.id, lane: e.lane, ref: e.ref, commit: e.commit, reason})
  }
  return out
}
