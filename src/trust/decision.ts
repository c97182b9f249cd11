import {digestOf} from '../records/digest.js'
import type {DecisionBody, EvaluationBody} from '../records/types.js'
import {citedEntry, type Ledger, type LedgerEntry} from '../store/index.js'
import type {Comparison} from '../evals/compare.js'
import {holdoutChecks, validationChecks, verdictOf} from '../loop/policy.js'
import {signature} from './evaluation.js'
import {checkAttemptDecision} from './verdict.js'
import {movedMain} from './moved-main.js'
import {evidenceDatasetProblem} from './dataset.js'
import {notOfProposal} from './of-proposal.js'
import {signatureKey, type Standing, type TrustInput} from './types.js'

const bad = (reason: string): Standing => ({ok: false, class: 'forged_decision', reason})

/**
 * Whether a decision stands: every evaluation it rests on stands, it is signed when the
 * policy requires it, and its verdict is what the policy it names (by blob) gives on that
 * evidence — validation candidate against its baseline, then the held-out pair — run on the
 * scenarios committed at the proposal's base (src/trust/dataset.ts). A reject
 * must rest on a candidate evaluation of its proposal too, and stands when the policy
 * rejects that evidence, or when it says main had moved from the proposal's base and main
 * is not at that base now (the one reason to reject that is not in the evidence). Any lane
 * can write a decision: a reject that needed nothing (no evidence, or evidence the policy
 * accepts) let one lane decide another lane's proposals before they were promoted. What it
 * names is looked up on its own lane first (store/own.ts, citedEntry). `at`: an id or an entry.
 */
export function checkDecision(ledger: Ledger, at: string | LedgerEntry, input: TrustInput, standing: (x: string | LedgerEntry) => Standing): Standing {
  const id = typeof at === 'string' ? at : at.id
  const e = typeof at === 'string' ? ledger.get(at) : at
  if (!e || e.kind !== 'decision') return bad(`${id} is not a decision of this ledger`)
  const d = ledger.load<'decision'>(e).body as DecisionBody
  const signed = signature(e, input)
  if (signed) return signed
  const evals: {id: string; entry: LedgerEntry; body: EvaluationBody}[] = []
  for (const ev of d.evaluations) {
    const x = citedEntry(ledger, ev, e)
    const s = standing(x ?? ev)
    if (!s.ok) return bad(`it rests on evaluation ${ev}, which does not stand: ${s.reason}`)
    if (x?.kind === 'evaluation') evals.push({id: ev, entry: x, body: ledger.load<'evaluation'>(x).body as EvaluationBody})
  }
  if (d.proposal.startsWith('at-')) return checkAttemptDecision(ledger, d, input, e)
  for (const x of evals) if (x.body.proposal !== undefined && x.body.proposal !== d.proposal) return bad(`evaluation ${x.id} is of proposal ${x.body.proposal}, not ${d.proposal}`)
  if (d.verdict === 'reject' && !evals.some(x => x.body.proposal === d.proposal && x.body.role === 'candidate')) return bad(`it rests on no candidate evaluation of ${d.proposal}: a reject needs evidence too`)
  const p = citedEntry(ledger, d.proposal, e)
  // (keyed by id for the copy every view shows, by lane and id for another lane's: load.ts)
  const beyond = d.verdict === 'accept' ? input.proposalScopes?.get(p && p !== ledger.get(d.proposal) ? signatureKey(p) : d.proposal) : undefined
  if (beyond?.length) return bad(`proposal ${d.proposal}'s branch changes more than its skill, which no evaluation judged: ${beyond.join('; ')}`)
  const policy = d.policy.blob ? input.policies?.get(d.policy.blob) : undefined
  if (!policy) return bad(`the policy it names (${d.policy.blob ?? 'no blob'}) is not in this repository`)
  if (digestOf(policy) !== d.policy.digest) return bad('the policy blob it names does not have the digest it records')
  const pick = (split: string, role: string) => evals.find(x => x.body.split === split && x.body.role === role)?.body
  const candidate = pick('validation', 'candidate')
  if (!candidate?.comparison) return bad('it names no validation candidate with a paired comparison')
  const baseline = evals.find(x => x.id === candidate.comparison!.baseline)?.body
  if (!baseline) return bad(`it does not name the candidate's baseline ${candidate.comparison.baseline}`)
  const proposal = p?.kind === 'proposal' ? ledger.load<'proposal'>(p).body : undefined
  // judged on the scenarios committed at the base (and its sealed held-out file), never on a folder the promoter chose
  const dataset = proposal ? input.datasets?.get(proposal.base.commit) : undefined
  const offData = dataset ? evidenceDatasetProblem(ledger, evals.map(x => x.entry), dataset, proposal!.base.commit) : undefined
  if (offData) return bad(offData)
  const hc = pick('holdout', 'candidate')
  const hb = pick('holdout', 'baseline')
  // (held-out too: a pair of other skills' held-out runs would pass a candidate that worsens it)
  const other = proposal ? (notOfProposal(proposal, candidate, baseline) ?? (hc && hb ? notOfProposal(proposal, hc, hb) : undefined)) : undefined
  if (other) return bad(`its evaluations are not of proposal ${d.proposal}'s skill and its base: ${other}`)
  const input2 = {candidate: candidate as EvaluationBody & {comparison: Comparison}, baseline, ...(hc && hb ? {holdout: {candidate: hc, baseline: hb}} : {})}
  // (a reject without a held-out pair is one whose validation failed: promote looks at held-out only after it passes)
  const checks = [...validationChecks(policy, input2), ...(d.verdict === 'accept' || input2.holdout ? holdoutChecks(policy, input2) : [])]
  const v = verdictOf(checks)
  if (d.verdict === 'accept') return v.verdict === 'accept' ? {ok: true, level: 'verified'} : bad(`the policy rejects its evidence: ${v.reasons[0]}`)
  if (v.verdict === 'reject' || movedMain(d, input, proposal?.base.commit)) return {ok: true, level: 'verified'}
  return bad('the policy accepts its evidence, and main has not moved from the proposal\'s base: nothing it names gives a reject')
}
