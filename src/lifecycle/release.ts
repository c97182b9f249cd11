import {HypothesisStateError} from '../errors/index.js'
import {traceClaims} from '../projections/claims.js'
import type {RecordStore} from '../store/index.js'
import {findHypothesis} from './lookup.js'

export interface ReleaseOptions {
  hypothesis: string
  lane: string
  reason?: string
  now: () => Date
}

export interface ReleaseResult {
  release: string
  hypothesis: string
  holder: string
  claim: string
}

/** `exp release`: give back this lane's claim (a lapsed one too); refused when the lane holds none. */
export async function releaseHypothesis(store: RecordStore, o: ReleaseOptions): Promise<ReleaseResult> {
  const now = o.now()
  const {node, view} = await findHypothesis(store, o.hypothesis, now)
  const tenure = traceClaims(node.events, now).tenures.find(t => t.holder === o.lane && t.released === undefined)
  if (!tenure) throw new HypothesisStateError(view.id, `not claimed by ${o.lane}`, 'release', `only the holder releases a claim; ${view.claim ? `${view.claim.holder} holds it` : 'nobody holds it'}`)
  const body = {hypothesis: view.id, holder: o.lane, claim: tenure.claim, ...(o.reason ? {reason: o.reason} : {})}
  const res = await store.append({kind: 'release', body, cites: [view.id, tenure.claim]}, {lane: o.lane, now: () => now})
  return {release: res.id, hypothesis: view.id, holder: o.lane, claim: tenure.claim}
}
