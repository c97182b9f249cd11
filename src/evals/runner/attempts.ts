import {recordId} from '../../records/index.js'
import type {VerificationBody} from '../../records/types.js'
import type {Scenario} from '../../scenarios/types.js'
import type {Ledger} from '../../store/index.js'
import {isInfrastructure} from '../../agents/invalid.js'
import {AgentInfrastructureError} from '../../errors/agent.js'
import {attemptKey, episodeKey} from './records.js'
import {reusableCopy, type Admit, type EpisodePlan} from './plan.js'
import type {VerifiedEpisode} from './summary.js'

const verificationId = (key: string) => recordId('verification', '', `${key}/verification`)
const infra = (v: VerificationBody) => !v.valid && isInfrastructure(v.invalid_reason)

/**
 * Episodes whose recorded attempt failed for an infrastructure reason (agent program
 * missing, endpoint down, timeout) are run again as the next attempt, with ids of their own
 * (`<episode key>/retry-N`), so the failed attempt stays in the ledger as what happened.
 * Later attempts that stand replace the first one; the latest is used, or retried again
 * while it still failed for such a reason. `retry: false` keeps what is recorded.
 */
export function retryInfrastructure(ledger: Ledger, plan: EpisodePlan, o: {manifest: string; lane: string; scenarios: readonly Scenario[]; evaluators: readonly string[]; retry: boolean; reuse: Admit}): EpisodePlan & {retried: number} {
  const byId = new Map(o.scenarios.map(s => [s.id, s]))
  const reused: EpisodePlan['reused'] = []
  const pending = [...plan.pending]
  let retried = 0
  for (const r of plan.reused) {
    if (!infra(r.body)) {
      reused.push(r)
      continue
    }
    const [scenarioId, rep] = r.slot.split('\u0000') as [string, string]
    const scenario = byId.get(scenarioId)!
    const baseKey = episodeKey(o.manifest, scenarioId, Number(rep))
    let latest: (typeof reused)[number] = r
    let n = 1
    for (; ; n++) {
      const id = verificationId(attemptKey(baseKey, n))
      const e = reusableCopy(ledger, id, {manifest: o.manifest, lane: o.lane, reuse: o.reuse, evaluators: o.evaluators, scenario, rep: Number(rep)})
      if (!e) break
      latest = {slot: r.slot, id, digest: e.digest, body: ledger.load<'verification'>(e).body as VerificationBody}
    }
    if (o.retry && infra(latest.body)) {
      retried++
      pending.push({slot: r.slot, scenario, rep: Number(rep), key: attemptKey(baseKey, n), baseKey})
    } else reused.push(latest)
  }
  return {total: plan.total, reused, pending, retried}
}

/** How many episodes failed for infrastructure reasons, and why (the most common reasons first). */
export function infrastructureFailures(verified: readonly Pick<VerifiedEpisode, 'body'>[]): {count: number; reasons: {reason: string; count: number}[]} {
  return invalidReasons(verified, infra)
}

/** How many episodes were invalid (those `which` takes: default every one), and why, the most common reasons first. */
export function invalidReasons(verified: readonly Pick<VerifiedEpisode, 'body'>[], which: (v: VerificationBody) => boolean = v => !v.valid): {count: number; reasons: {reason: string; count: number}[]} {
  const by = new Map<string, number>()
  for (const v of verified) {
    if (!which(v.body) || v.body.valid) continue
    // the reason up to its first detail that differs per episode (a stderr tail)
    const reason = (v.body.invalid_reason ?? 'invalid').split('; stderr:')[0]!.slice(0, 200)
    by.set(reason, (by.get(reason) ?? 0) + 1)
  }
  const reasons = [...by].map(([reason, count]) => ({reason, count})).sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1))
  return {count: reasons.reduce((n, r) => n + r.count, 0), reasons}
}

/** No episode of the run could run at all: no evaluation is worth recording, say so. */
export function assertSomeRan(verified: readonly Pick<VerifiedEpisode, 'body'>[], agent: string): void {
  const failed = infrastructureFailures(verified)
  if (verified.length && failed.count === verified.length) throw new AgentInfrastructureError(agent, failed.count, failed.reasons)
}
