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

/**
 * Another lane built the same candidate (same skill, base and patch) from its own hypothesis;
 * or this lane did (`self`), from another hypothesis of its own — the same patch proposed again
 * with other words (a drafted reason makes another hypothesis): one patch on one base is one
 * proposal, and that one is to be evaluated.
 */
export class CandidateTakenError extends ExpError {
  constructor(proposal: string, lane: string, hypothesis: string | undefined, mine: string, self = false) {
    const from = hypothesis ? ` from ${hypothesis}` : ''
    super('E_CLAIMED', self ? `this lane (${lane}) proposed the same patch on the same base already: ${proposal}${from}; one patch on one base is one proposal, whatever words it was drafted with` : `proposal ${proposal} (the same patch on the same base) was built by lane ${lane}${from}`, {
      data: {proposal, holder: lane, hypothesis: hypothesis ?? null, mine, self},
      hint: self ? `evaluate that one (\`exp eval ${proposal}\`), or propose again after new knowledge or on a new main; nothing was recorded` : 'its evaluation is theirs; pick another item from `exp frontier`',
    })
  }
}
