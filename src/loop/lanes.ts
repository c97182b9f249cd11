import {ClaimedError, HypothesisStateError} from '../errors/index.js'
import {claimHypothesis, releaseHypothesis, retireHypothesis} from '../lifecycle/index.js'
import {hypotheses} from '../projections/index.js'
import type {Ledger, RecordStore} from '../store/index.js'

/**
 * Leaderless lanes (docs/frontier.md): each `exp evolve --lane X` claims the hypothesis it
 * builds a candidate for, leaves alone the knowledge behind other lanes' live claims, and
 * gives its claims back once the work is decided. The claims are records, and the ledger
 * order decides every race the same way in every clone; the only lock is the local one a
 * claim holds while it checks (lifecycle/claim.ts).
 */
export interface LaneWork {
  store: RecordStore
  lane: string
  ttlSeconds: number
  now: () => Date
}

/** Another lane's live claim, with the knowledge its hypothesis was built from. */
export interface ForeignClaim {
  hypothesis: string
  holder: string
  knowledge: string[]
}

/** Live claims of lanes other than `lane`, in ledger order. */
export function foreignClaims(ledger: Ledger, lane: string, now: Date): ForeignClaim[] {
  const out: ForeignClaim[] = []
  for (const h of hypotheses(ledger, now)) {
    if (!h.claim || h.claim.holder === lane) continue
    const e = ledger.get(h.id)
    const knowledge = e ? [...(ledger.load<'hypothesis'>(e).body.knowledge ?? [])] : []
    out.push({hypothesis: h.id, holder: h.claim.holder, knowledge})
  }
  return out
}

/**
 * Claim for this lane. A claim that is refused, or that lost the ledger-order race after
 * it was written, is given back at once (it would otherwise wait in line and take over a
 * hypothesis this lane has stopped working on) and rethrown as ClaimedError.
 */
export async function claimFor(w: LaneWork, hypothesis: string): Promise<void> {
  try {
    await claimHypothesis(w.store, {
      hypothesis,
      lane: w.lane,
      ttlSeconds: w.ttlSeconds,
      now: w.now,
    })
  } catch (e) {
    if (e instanceof ClaimedError && e.data?.lost) await releaseFor(w, hypothesis, 'lost the claim race in ledger order')
    throw e
  }
}

/** Give back this lane's claim, when it has one (a decided or retired hypothesis included). */
export async function releaseFor(w: LaneWork, hypothesis: string, reason: string): Promise<void> {
  await unlessState(releaseHypothesis(w.store, {hypothesis, lane: w.lane, reason, now: w.now}))
}

/** Retire a hypothesis whose candidate went stale, with the reason, and release it. */
export async function retireStale(w: LaneWork, hypothesis: string, reason: string): Promise<void> {
  await unlessState(retireHypothesis(w.store, {hypothesis, lane: w.lane, reason, now: w.now}))
  await releaseFor(w, hypothesis, 'retired')
}

/** Await a lifecycle write that may find the hypothesis already where it was going (not claimed, retired). */
async function unlessState(write: Promise<unknown>): Promise<void> {
  try {
    await write
  } catch (e) {
    if (!(e instanceof HypothesisStateError)) throw e
  }
}
