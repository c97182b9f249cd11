import {ExpError} from './base.js'

/** Another lane holds the hypothesis (or won the race for it in ledger order). */
export class ClaimedError extends ExpError {
  constructor(hypothesis: string, holder: string, expiresAt: string, lost = false) {
    const msg = lost
      ? `claim recorded, but ${holder}'s claim of ${hypothesis} precedes it in ledger order; ${holder} holds it until ${expiresAt}`
      : `${hypothesis} is claimed by ${holder} until ${expiresAt}`
    super('E_CLAIMED', msg, {
      data: {hypothesis, holder, expires_at: expiresAt, lost},
      hint: lost ? 'your claim waits in line and takes over if theirs lapses or is released; see `exp frontier`' : 'pick another item from `exp frontier`, or wait until the claim lapses or is released',
    })
  }
}

/** The hypothesis' derived status forbids the transition asked for (e.g. claiming a retired one). */
export class HypothesisStateError extends ExpError {
  constructor(hypothesis: string, status: string, action: string, hint: string) {
    super('E_STATE', `cannot ${action} ${hypothesis}: it is ${status}`, {data: {hypothesis, status, action}, hint})
  }
}

/** Another lane built the same candidate (same skill, base and patch) from its own hypothesis. */
export class CandidateTakenError extends ExpError {
  constructor(proposal: string, lane: string, hypothesis: string | undefined, mine: string) {
    super('E_CLAIMED', `proposal ${proposal} (the same patch on the same base) was built by lane ${lane}${hypothesis ? ` from ${hypothesis}` : ''}`, {
      data: {proposal, holder: lane, hypothesis: hypothesis ?? null, mine},
      hint: 'its evaluation is theirs; pick another item from `exp frontier`',
    })
  }
}
