import type {AttemptBody, DecisionBody, VerdictBody} from '../records/types.js'
import {onLane, type Ledger, type LedgerEntry} from '../store/index.js'
import {attemptLane, ownMeasurement} from './keys.js'

export interface AttemptView {
  id: string
  lane: string
  contract: string
  ordinal: number
  branch: string
  hypothesis?: string
  resumes?: string
  /** per split: the latest verdict of each repetition, and their mean metric */
  splits: Record<string, {repetitions: number; valid: number; mean?: number; outcomes: Record<string, number>; needs_retry: number}>
  decision?: {id: string; verdict: 'accept' | 'reject'; merge?: string}
  state: 'open' | 'evaluated' | 'needs_retry' | 'accepted' | 'rejected'
}

/**
 * The attempts of the ledger (or of one contract), as `exp attempt list` shows them (pure).
 * `admit` (docs/trust.md: the Authority's) leaves out verdicts and decisions that do not
 * stand — a verdict that does not follow from its observation, an accept its contract would
 * not give — so a forged record can neither score an attempt nor mark it accepted; and an
 * attempt is scored by its own lane's verdicts only, with or without `admit`.
 */
export function attemptViews(ledger: Ledger, contract?: string, o: {admit?: (id: string) => boolean; ownDecisions?: boolean} = {}): AttemptView[] {
  const admit = o.admit ?? (() => true)
  const verdicts = new Map<string, {e: LedgerEntry; body: VerdictBody}[]>()
  for (const e of ledger.select({kinds: ['verdict']})) {
    if (!admit(e.id)) continue
    const v = ledger.load<'verdict'>(e).body as VerdictBody
    verdicts.set(v.attempt, [...(verdicts.get(v.attempt) ?? []), {e, body: v}])
  }
  const decisions = new Map<string, {id: string; e: LedgerEntry; body: DecisionBody}[]>()
  for (const e of ledger.select({kinds: ['decision']})) {
    if (!admit(e.id)) continue
    const d = ledger.load<'decision'>(e).body as DecisionBody
    if (d.proposal.startsWith('at-')) decisions.set(d.proposal, [...(decisions.get(d.proposal) ?? []), {id: e.id, e, body: d}])
  }
  // the one that counts (trust/authority.ts): a standing accept, else the first standing reject;
  // with ownDecisions, only those on the attempt's own lane (what its research loop decided: any
  // lane can write a reject of any attempt, and one that does not stand stopped a lane's loop)
  const decisionOf = (attempt: LedgerEntry, lane: string) => {
    const all = (decisions.get(attempt.id) ?? []).filter(d => !o.ownDecisions || onLane(ledger, d.e, lane))
    return all.find(d => d.body.verdict === 'accept') ?? all[0]
  }
  const out: AttemptView[] = []
  for (const e of ledger.select({kinds: ['attempt']})) {
    const a = ledger.load<'attempt'>(e).body as AttemptBody
    if (a.ordinal === 0 || (contract && a.contract.name !== contract)) continue
    const splits: AttemptView['splits'] = {}
    // its own lane's measurements only (keys.ts, ownMeasurement): another lane's verdicts of it,
    // the latest per repetition, replaced its own
    const own = (verdicts.get(e.id) ?? []).filter(v => ownMeasurement(ledger, v.e, e, {contract: a.contract.name, ordinal: a.ordinal}))
    // (whose it is: a copy of its record another lane put first in ledger order does not say)
    const lane = attemptLane(ledger, e, {contract: a.contract.name, ordinal: a.ordinal})
    for (const split of ['dev', 'holdout']) {
      const latest = new Map<number, VerdictBody>()
      for (const {body: v} of own) if (v.split === split) latest.set(v.repetition, v)
      if (!latest.size) continue
      const vs = [...latest.values()]
      const ok = vs.filter(v => v.valid && v.metric)
      const outcomes: Record<string, number> = {}
      for (const v of vs) outcomes[v.outcome] = (outcomes[v.outcome] ?? 0) + 1
      splits[split] = {repetitions: vs.length, valid: ok.length, ...(ok.length ? {mean: Math.round((ok.reduce((s, v) => s + v.metric!.value, 0) / ok.length) * 1e6) / 1e6} : {}), outcomes, needs_retry: vs.filter(v => v.needs_retry && v.needs_retry.resume.action !== 'abandon').length}
    }
    const d = decisionOf(e, lane)
    const state: AttemptView['state'] = d ? (d.body.verdict === 'accept' ? 'accepted' : 'rejected') : Object.values(splits).some(s => s.needs_retry) ? 'needs_retry' : Object.keys(splits).length ? 'evaluated' : 'open'
    out.push({id: e.id, lane, contract: a.contract.name, ordinal: a.ordinal, branch: a.branch, ...(a.hypothesis ? {hypothesis: a.hypothesis} : {}), ...(a.resumes ? {resumes: a.resumes} : {}), splits, ...(d ? {decision: {id: d.id, verdict: d.body.verdict, ...(d.body.merge ? {merge: d.body.merge.commit} : {})}} : {}), state})
  }
  return out
}
