import {recordId} from '../../records/index.js'
import type {VerificationBody} from '../../records/types.js'
import type {Ledger} from '../../store/index.js'
import {isInfrastructure} from '../../agents/invalid.js'
import {AgentInfrastructureError} from '../../errors/agent.js'
import {attemptKey, episodeKey} from './records.js'
import type {VerifiedEpisode} from './summary.js'

export interface Attempt<S> {
  scenario: S
  rep: number
  /** 0 for the first run of the episode, n for its n-th retry */
  attempt: number
  /** the verification id of this attempt */
  vid: string
}

export function verificationId(manifest: string, scenario: string, rep: number, attempt: number): string {
  return recordId('verification', '', `${attemptKey(episodeKey(manifest, scenario, rep), attempt)}/verification`)
}

/**
 * Which attempt of each (scenario, repetition) a run uses: the latest recorded one, unless
 * it was invalid for an infrastructure reason (agent missing, endpoint down, timeout) and
 * `retry` is on, in which case the next attempt is run. Retries get ids of their own, so the
 * failed attempt stays in the ledger as what happened.
 */
export function planAttempts<S extends {id: string}>(ledger: Ledger, manifest: string, items: readonly {scenario: S; rep: number}[], retry: boolean): {plan: Attempt<S>[]; retried: number} {
  let retried = 0
  const plan = items.map(({scenario, rep}) => {
    let n = 0
    while (ledger.get(verificationId(manifest, scenario.id, rep, n))) n++
    if (n === 0) return {scenario, rep, attempt: 0, vid: verificationId(manifest, scenario.id, rep, 0)}
    const last = verificationId(manifest, scenario.id, rep, n - 1)
    const body = ledger.load<'verification'>(ledger.get(last)!).body as VerificationBody
    if (retry && !body.valid && isInfrastructure(body.invalid_reason)) {
      retried++
      return {scenario, rep, attempt: n, vid: verificationId(manifest, scenario.id, rep, n)}
    }
    return {scenario, rep, attempt: n - 1, vid: last}
  })
  return {plan, retried}
}

/** How many episodes failed for infrastructure reasons, and why (the most common reasons first). */
export function infrastructureFailures(verified: readonly VerifiedEpisode[]): {count: number; reasons: {reason: string; count: number}[]} {
  const by = new Map<string, number>()
  for (const v of verified) {
    if (v.body.valid || !isInfrastructure(v.body.invalid_reason)) continue
    // the reason up to its first detail that differs per episode (a stderr tail)
    const reason = v.body.invalid_reason!.split('; stderr:')[0]!.slice(0, 200)
    by.set(reason, (by.get(reason) ?? 0) + 1)
  }
  const reasons = [...by].map(([reason, count]) => ({reason, count})).sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1))
  return {count: reasons.reduce((n, r) => n + r.count, 0), reasons}
}

/** No episode of the run could run at all: no evaluation is worth recording, say so. */
export function assertSomeRan(verified: readonly VerifiedEpisode[], agent: string): void {
  const infra = infrastructureFailures(verified)
  if (verified.length && infra.count === verified.length) throw new AgentInfrastructureError(agent, infra.count, infra.reasons)
}
