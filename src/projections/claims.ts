import type {AnyLinked, Linked} from './research.js'
import type {ClaimState, Tenure} from './types.js'

/** A tenure with the ledger positions of its first and latest claim. */
export type Placed = Tenure & {pos: number; lastPos: number}

export interface ClaimTrace {
  /** every tenure in the order it started */
  tenures: Placed[]
  /** releases that ended no tenure: the holder held nothing then */
  orphanReleases: Linked<'release'>[]
}

/**
 * Replay the claims and releases of one hypothesis in ledger order. A claim by a holder
 * whose tenure is still open and was not past its expiry when the claim was written
 * renews it (the tenure keeps its place in line); any other claim starts a new tenure.
 * A release ends the holder's open tenure (or names one of its claims).
 */
export function traceClaims(events: readonly AnyLinked[]): ClaimTrace {
  const open = new Map<string, Placed>()
  const tenures: ClaimTrace['tenures'] = []
  const orphanReleases: Linked<'release'>[] = []
  for (const l of events) {
    if (l.entry.kind === 'claim') {
      const f = (l as Linked<'claim'>).facts
      const t = open.get(f.holder)
      if (t && Date.parse(f.created_at) <= Date.parse(t.expires_at)) {
        t.claim = l.entry.id
        t.claims.push(l.entry.id)
        t.lastPos = l.pos
        // a renewal with a shorter TTL still shortens it: the latest word of the holder counts
        t.expires_at = f.expires_at
        continue
      }
      const fresh = {holder: f.holder, since: l.entry.id, claim: l.entry.id, claims: [l.entry.id], expires_at: f.expires_at, pos: l.pos, lastPos: l.pos}
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
  return {tenures, orphanReleases}
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
