import type {DecisionBody} from '../records/types.js'
import type {Ledger} from '../store/index.js'
import type {Promotion} from '../projections/mainline.js'
import type {Standing} from './types.js'

/**
 * A merge on main counts as a promotion only when an accept decision for its proposal
 * stands and names this very merge (and the policy digest of its trailer). Anything
 * else carrying `Exp-Promotes` is an unverified merge: shown as such, never hidden.
 */
export function checkPromotion(ledger: Ledger, p: Promotion, standing: (id: string) => Standing): Standing {
  const decisions = ledger.select({kinds: ['decision'], cites: p.proposal}).map(e => ({id: e.id, body: ledger.load<'decision'>(e).body as DecisionBody})).filter(d => d.body.proposal === p.proposal)
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
    const s = standing(d.id)
    if (!s.ok) {
      why = `its decision ${d.id} does not stand: ${s.reason}`
      continue
    }
    return {ok: true, level: 'verified'}
  }
  return {ok: false, class: 'unverified_promotion', reason: why}
}
