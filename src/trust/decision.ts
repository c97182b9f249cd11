import {digestOf} from '../records/digest.js'
import type {DecisionBody, EvaluationBody} from '../records/types.js'
import type {Ledger} from '../store/index.js'
import type {Comparison} from '../evals/compare.js'
import {holdoutChecks, validationChecks, verdictOf} from '../loop/policy.js'
import {signature} from './evaluation.js'
import {checkAttemptDecision} from './verdict.js'
import type {Standing, TrustInput} from './types.js'

const bad = (reason: string): Standing => ({ok: false, class: 'forged_decision', reason})

/**
 * Whether a decision stands: every evaluation it rests on stands, it is signed when the
 * policy requires it, and an accept is what the policy it names (by blob) gives on that
 * evidence — validation candidate against its baseline, then the held-out pair. A reject
 * needs standing evidence only: it never moves main.
 */
export function checkDecision(ledger: Ledger, id: string, input: TrustInput, standing: (id: string) => Standing): Standing {
  const e = ledger.get(id)
  if (!e || e.kind !== 'decision') return bad(`${id} is not a decision of this ledger`)
  const d = ledger.load<'decision'>(e).body as DecisionBody
  const signed = signature(e, input)
  if (signed) return signed
  const evals: {id: string; body: EvaluationBody}[] = []
  for (const ev of d.evaluations) {
    const s = standing(ev)
    if (!s.ok) return bad(`it rests on evaluation ${ev}, which does not stand: ${s.reason}`)
    if (ledger.get(ev)?.kind === 'evaluation') evals.push({id: ev, body: ledger.load<'evaluation'>(ledger.get(ev)!).body as EvaluationBody})
  }
  if (d.proposal.startsWith('at-')) return d.verdict === 'reject' ? {ok: true, level: 'verified'} : checkAttemptDecision(ledger, d, input, e.lane)
  for (const x of evals) if (x.body.proposal !== undefined && x.body.proposal !== d.proposal) return bad(`evaluation ${x.id} is of proposal ${x.body.proposal}, not ${d.proposal}`)
  if (d.verdict === 'reject') return {ok: true, level: 'verified'}
  const beyond = input.proposalScopes?.get(d.proposal)
  if (beyond?.length) return bad(`proposal ${d.proposal}'s branch changes more than its skill, which no evaluation judged: ${beyond.join('; ')}`)
  const policy = d.policy.blob ? input.policies?.get(d.policy.blob) : undefined
  if (!policy) return bad(`the policy it names (${d.policy.blob ?? 'no blob'}) is not in this repository`)
  if (digestOf(policy) !== d.policy.digest) return bad('the policy blob it names does not have the digest it records')
  const pick = (split: string, role: string) => evals.find(x => x.body.split === split && x.body.role === role)?.body
  const candidate = pick('validation', 'candidate')
  if (!candidate?.comparison) return bad('it names no validation candidate with a paired comparison')
  const baseline = evals.find(x => x.id === candidate.comparison!.baseline)?.body
  if (!baseline) return bad(`it does not name the candidate's baseline ${candidate.comparison.baseline}`)
  const p = ledger.get(d.proposal)
  if (p?.kind === 'proposal') {
    const pb = ledger.load<'proposal'>(p).body
    if (candidate.skill.blob !== pb.head.skill_blob || baseline.skill.blob !== pb.base.skill_blob) return bad(`its evaluations are not of proposal ${d.proposal}'s skill and its base`)
  }
  const hc = pick('holdout', 'candidate')
  const hb = pick('holdout', 'baseline')
  const input2 = {candidate: candidate as EvaluationBody & {comparison: Comparison}, baseline, ...(hc && hb ? {holdout: {candidate: hc, baseline: hb}} : {})}
  const checks = [...validationChecks(policy, input2), ...holdoutChecks(policy, input2)]
  const v = verdictOf(checks)
  if (v.verdict !== 'accept') return bad(`the policy rejects its evidence: ${v.reasons[0]}`)
  return {ok: true, level: 'verified'}
}
