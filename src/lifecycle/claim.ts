import {utcTimestamp} from '../records/index.js'
import {ClaimedError, HypothesisStateError, UsageError} from '../errors/index.js'
import type {RecordStore} from '../store/index.js'
import {MAX_TTL_SECONDS} from '../projections/claims.js'
import {findHypothesis} from './lookup.js'

export const DEFAULT_TTL_SECONDS = 3600
export {MAX_TTL_SECONDS}

export interface ClaimOptions {
  hypothesis: string
  lane: string
  ttlSeconds?: number
  now: () => Date
}

export interface ClaimResult {
  claim: string
  hypothesis: string
  holder: string
  expires_at: string
  /** true when this lane already held it: the claim extends the hold */
  renewed: boolean
}

/**
 * `exp claim`: refuse what another lane holds, else record a claim (a renewal when this
 * lane holds it already). Two clones can race offline, so after writing, the ledger is read
 * again: when an earlier claim of another lane is now visible, the claim waits in line and
 * this reports it (the ledger-order rule, not this check, is the arbiter).
 *
 * On one repository the read, the write and the second read hold the store's `claims`
 * lock. Without it two lanes claiming at once could both win: lanes append in parallel, so
 * a claim can get the same Lamport clock as another lane's claim that was being written at
 * the same moment, sort before it, and become visible only after that lane's second read.
 */
export async function claimHypothesis(store: RecordStore, o: ClaimOptions): Promise<ClaimResult> {
  const ttl = o.ttlSeconds ?? DEFAULT_TTL_SECONDS
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_SECONDS) throw new UsageError(`--ttl must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS} (366 days) (got ${ttl})`, 'claim again before it lapses to renew it')
  return store.exclusive('claims', () => claimLocked(store, o, ttl))
}

async function claimLocked(store: RecordStore, o: ClaimOptions, ttl: number): Promise<ClaimResult> {
  const now = o.now()
  const {view} = await findHypothesis(store, o.hypothesis, now)
  if (view.status === 'retired') throw new HypothesisStateError(view.id, 'retired', 'claim', 'reopen it first: `exp reopen HYP --reason TEXT`')
  if (view.status === 'promoted') throw new HypothesisStateError(view.id, 'promoted', 'claim', 'it is already in the deployed skill; propose a new hypothesis instead')
  if (view.claim && view.claim.holder !== o.lane) throw new ClaimedError(view.id, view.claim.holder, view.claim.expires_at)
  const renews = view.claim?.claim
  const expires = utcTimestamp(new Date(now.getTime() + ttl * 1000))
  const res = await store.append({kind: 'claim', body: {hypothesis: view.id, holder: o.lane, ttl_seconds: ttl, expires_at: expires, ...(renews ? {renews} : {})}, cites: [view.id]}, {lane: o.lane, now: () => now})
  const after = (await findHypothesis(store, o.hypothesis, now)).view
  if (after.claim && after.claim.holder !== o.lane) throw new ClaimedError(view.id, after.claim.holder, after.claim.expires_at, true)
  return {claim: res.id, hypothesis: view.id, holder: o.lane, expires_at: expires, renewed: !!renews}
}
