import type {AttemptBody, DecisionBody, ProposalBody, VerdictBody} from '../records/types.js'
import {citedEntry, type Ledger, type LedgerEntry} from '../store/index.js'
import type {Promotion} from '../projections/mainline.js'
import type {Standing} from './types.js'

/**
 * A merge on main counts as a promotion only when an accept decision for its proposal
 * stands and names this very merge (and the policy digest of its trailer). Anything
 * else carrying `Exp-Promotes` is an unverified merge: shown as such, never hidden.
 */
export function checkPromotion(ledger: Ledger, p: Promotion, standing: (x: string | LedgerEntry) => Standing): Standing {
  const decisions = ledger.select({kinds: ['decision'], cites: p.proposal}).map(e => ({id: e.id, entry: e, body: ledger.load<'decision'>(e).body as DecisionBody})).filter(d => d.body.proposal === p.proposal)
  if (!decisions.length) return {ok: false, class: 'unverified_promotion', reason: `no decision on proposal ${p.proposal} in the ledger`}
  const accepts = decisions.filter(d => d.body.verdict === 'accept')
  if (!accepts.length) return {ok: false, class: 'unverified_promotion', reason: `proposal ${p.proposal} was rejected (${decisions[decisions.length - 1]!.id}); this merge has no accept behind it`}
  let why = ''
  for (const d of accepts) {
    if (d.body.merge?.commit !== p.commit) {
      why = `the accept decision ${d.id} merged ${d.body.merge?.commit.slice(0, 12) ?? 'nothing'}, not this commit`
      continue
    }
    if (p.policy && p.policy.digest !== d.body.policy.digest) {
      why = `the merge names policy ${p.policy.digest.slice(0, 19)}…, its decision ${d.id} another`
      continue
    }
    const s = standing(d.entry)
    if (!s.ok) {
      why = `its decision ${d.id} does not stand: ${s.reason}`
      continue
    }
    const merged = p.proposal.startsWith('at-') ? attemptMergeProblem(ledger, d.entry, d.body, p) : skillMergeProblem(ledger, d.entry, d.body, p)
    if (merged) {
      why = `its decision ${d.id} stands, but ${merged}`
      continue
    }
    return {ok: true, level: 'verified'}
  }
  return {ok: false, class: 'unverified_promotion', reason: why}
}

/**
 * An attempt's accept stands on verdicts of one committed state: the merge must put exactly
 * that state on main (its second parent, and its tree), on the main the attempt was opened
 * on. Otherwise anyone who can push main could merge something never evaluated and name a
 * standing accept of another commit.
 */
function attemptMergeProblem(ledger: Ledger, de: LedgerEntry, d: DecisionBody, p: Promotion): string | undefined {
  const a = citedEntry(ledger, d.proposal, de)
  if (a?.kind !== 'attempt') return `attempt ${d.proposal} is not in the ledger`
  const attempt = ledger.load<'attempt'>(a).body as AttemptBody
  if (attempt.base.commit !== p.first_parent) return `the merge is not on the main the attempt was opened on (${attempt.base.commit.slice(0, 12)})`
  const sources = d.evaluations.flatMap(id => {
    const e = citedEntry(ledger, id, de)
    if (e?.kind !== 'verdict') return []
    const v = ledger.load<'verdict'>(e).body as VerdictBody
    return v.attempt === d.proposal && v.source ? [v.source] : []
  })
  if (!sources.length) return 'it cites no verdict of the attempt'
  const off = sources.find(s => s.commit !== p.proposal_commit || (p.tree !== undefined && s.tree !== p.tree))
  if (off) return `the merge puts ${p.proposal_commit?.slice(0, 12) ?? 'nothing'}${p.tree ? ` (tree ${p.tree.slice(0, 12)})` : ''} on main, and the verdicts judged ${off.commit.slice(0, 12)} (tree ${off.tree.slice(0, 12)})`
  return undefined
}

/**
 * A skill proposal's accept stands on evaluations of its candidate SKILL.md: the merge must
 * be of the proposal's branch commit onto the main it was based on (promote refuses a moved
 * main), with the evaluated candidate as the skill's file. Otherwise anyone who can push main
 * could merge another SKILL.md and name a standing accept of this proposal.
 */
function skillMergeProblem(ledger: Ledger, de: LedgerEntry, d: DecisionBody, p: Promotion): string | undefined {
  const e = citedEntry(ledger, d.proposal, de)
  if (e?.kind !== 'proposal') return `proposal ${d.proposal} is not in the ledger`
  const proposal = ledger.load<'proposal'>(e).body as ProposalBody
  if (proposal.base.commit !== p.first_parent) return `the merge is not on the main the proposal was based on (${proposal.base.commit.slice(0, 12)})`
  if (p.proposal_commit !== proposal.head.commit) return `the merge puts ${p.proposal_commit?.slice(0, 12) ?? 'nothing'} on main, and the proposal's branch was ${proposal.head.commit.slice(0, 12)}`
  const merged = p.skills?.[proposal.skill]
  if (p.skills && merged !== proposal.head.skill_blob) return `the merge's skills/${proposal.skill}/SKILL.md is ${merged ? `blob ${merged.slice(0, 12)}` : 'missing'}, and the evaluations judged blob ${proposal.head.skill_blob.slice(0, 12)}`
  // the merge itself may add only the accepted PURPOSE.yaml to the branch it merges
  const extra = p.beyond_branch?.filter(f => f !== `skills/${proposal.skill}/PURPOSE.yaml`)
  if (extra?.length) return `the merge changes ${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ` (+${extra.length - 5} more)` : ''} beyond the proposal's branch, which no evaluation judged`
  return undefined
}
