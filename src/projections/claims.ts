import type {AnyLinked, Linked} from './research.js'
import type {ClaimState, Tenure} from './types.js'

/** a claim is a lease on work in progress: a year is already far longer than any needs */
export const MAX_TTL_SECONDS = 366 * 24 * 3600
/** how far ahead of this clock a claim may be dated and still count (the clocks of clones differ) */
export const CLOCK_SKEW_SECONDS = 600

/** A tenure with the ledger positions of its first and latest claim. */
export type Placed = Tenure & {pos: number; lastPos: number}

export interface ClaimTrace {
  /** every tenure in the order it started */
  tenures: Placed[]
  /** releases that ended no tenure: the holder held nothing then */
  orphanReleases: Linked<'release'>[]
  /** claims and releases not taken as they are, and why (a holder other than their lane, a date out of bounds) */
  refused: {record: AnyLinked; rule: 'claim_not_own' | 'claim_out_of_bounds'; message: string}[]
}

/**
 * Whether a claim or release speaks for the lane it sits on. Any lane can write a record
 * naming any holder: one naming another lane would release that lane's claim, or hold a
 * hypothesis in its name.
 */
export function ownClaim(l: AnyLinked): boolean {
  return (l as Linked<'claim'>).facts.holder === l.entry.lane
}

/**
 * Replay the claims and releases of one hypothesis in ledger order, as they stand at `now`.
 * A claim by a holder whose tenure is still open and was not past its expiry when the claim
 * was written renews it (the tenure keeps its place in line); any other claim starts a new
 * tenure. A release ends the holder's open tenure (or names one of its claims).
 *
 * A claim's dates are its writer's word, so they are bounded: a claim or release whose
 * holder is not its own lane is not taken; a claim dated more than CLOCK_SKEW_SECONDS after
 * `now` is not taken yet; a claim holds for at most MAX_TTL_SECONDS after it was made,
 * whatever expiry it names (`exp claim` refuses a longer --ttl). Each is in `refused`.
 */
export function traceClaims(events: readonly AnyLinked[], now: Date): ClaimTrace {
  const open = new Map<string, Placed>()
  const tenures: ClaimTrace['tenures'] = []
  const orphanReleases: Linked<'release'>[] = []
  const refused: ClaimTrace['refused'] = []
  for (const l of events) {
    if ((l.entry.kind === 'claim' || l.entry.kind === 'release') && !ownClaim(l)) {
      const f = (l as Linked<'claim'>).facts
      refused.push({record: l, rule: 'claim_not_own', message: `${l.entry.kind} ${l.entry.id} on lane ${l.entry.lane} names ${JSON.stringify(f.holder)} as holder: a lane claims and releases only for itself (not taken)`})
      continue
    }
    if (l.entry.kind === 'claim') {
      const f = (l as Linked<'claim'>).facts
      const made = Date.parse(f.created_at)
      if (!(made <= now.getTime() + CLOCK_SKEW_SECONDS * 1000)) {
        refused.push({record: l, rule: 'claim_out_of_bounds', message: `claim ${l.entry.id} is dated ${f.created_at}, after ${now.toISOString()} (not taken before then)`})
        continue
      }
      let expires = f.expires_at
      const most = made + MAX_TTL_SECONDS * 1000
      if (!(Date.parse(expires) <= most)) {
        expires = new Date(most).toISOString()
        refused.push({record: l, rule: 'claim_out_of_bounds', message: `claim ${l.entry.id} names expiry ${f.expires_at}, more than ${MAX_TTL_SECONDS} seconds (366 days) after it was made: it lapses at ${expires}`})
      }
      const t = open.get(f.holder)
      if (t && made <= Date.parse(t.expires_at)) {
        t.claim = l.entry.id
        t.claims.push(l.entry.id)
        t.lastPos = l.pos
        // a renewal with a shorter TTL still shortens it: the latest word of the holder counts
        t.expires_at = expires
        continue
      }
      const fresh = {holder: f.holder, since: l.entry.id, claim: l.entry.id, claims: [l.entry.id], expires_at: expires, pos: l.pos, lastPos: l.pos}
      open.set(f.holder, fresh)
      tenures.push(fresh)
    } else if (l.entry.kind === 'release') {
      const f = (l as Linked<'release'>).facts
      const t = open.get(f.holder)
      if (!t || (f.claim !== undefined && !t.claims.includes(f.claim))) {
        orphanReleases.push(l as Linked<'release'>)
        continue
      }
      t.released = l.entry.id
      open.delete(f.holder)
    }
  }
  return {tenures, orphanReleases, refused}
}

/** A tenure is live at `now` when it was not released and has not expired. */
export function isLive(t: Tenure, now: Date): boolean {
  return t.released === undefined && Date.parse(t.expires_at) > now.getTime()
}

/**
 * Who holds the hypothesis at `now`: the live tenure that started first in ledger order
 * (lamport, lane, id). Every clone with the same refs computes the same holder; the others
 * wait, and see the hypothesis as blocked.
 */
export function claimState(trace: ClaimTrace, now: Date): ClaimState & {lastClaimPos?: number} {
  const live = trace.tenures.filter(t => isLive(t, now))
  const [first, ...rest] = live
  return first ? {holder: strip(first), lastClaimPos: first.lastPos, waiting: rest.map(strip)} : {waiting: []}
}

function strip(t: Placed): Tenure {
  const {pos: _pos, lastPos: _last, ...rest} = t
  return rest
}
