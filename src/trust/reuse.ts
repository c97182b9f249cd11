import type {Vouch} from '../evals/runner/plan.js'
import {citedEntry, onLane} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {loadAuthority, policyAt} from './load.js'
import {trustSettings} from './types.js'

/**
 * Which recorded episodes a run may reuse when the policy requires signed evidence.
 *
 * A replay re-derives the evaluator's judgement of a trace, not that the agent produced it
 * (docs/trust.md). With signing, the trusted identity's signature on an evaluation is what
 * says the agent ran: an evaluation pins its verifications by its evidence digest. Reusing
 * another lane's unsigned episode would lend that signature to traces nobody trusted ran —
 * the owner of another lane could record failing traces that replay under a baseline's
 * public keys and have a trusted run sign a comparison that favours any candidate. So a run
 * reuses only the episodes of its own lane (its own earlier or interrupted runs) and those an
 * evaluation that stands (signed by a trusted identity) already pins; the rest it runs itself.
 * Without signing, every episode that replays is reused, as documented.
 *
 * `mainRef` is read at each call: the policy that rules is main's as the run goes on.
 */
export function signedReuse(ws: Workspace, mainRef: string): Vouch {
  return async (ledger, run) => {
    const at = await ws.readRef(mainRef)
    const policy = at ? await policyAt(ws, at) : undefined
    if (!trustSettings(policy).requireSigned) return () => true
    const authority = await loadAuthority(ledger, ws, {at, policy})
    // the copies an evaluation that stands pins (by id and digest: the copy of each id it cites,
    // as every trust check reads it, citedEntry): another lane's copy under a pinned id is not
    // pinned (an attack sweep's unsigned copies under a signed run's ids, first in ledger order,
    // were reused and signed by the next trusted run)
    const pinned = new Set<string>()
    for (const e of ledger.select({kinds: ['evaluation'], cites: run.manifest, includePrivate: true})) {
      if (!authority.counts(e.id)) continue
      for (const c of e.cites) {
        const v = citedEntry(ledger, c, e)
        if (v) pinned.add(`${c}\u0000${v.digest}`)
      }
    }
    return e => pinned.has(`${e.id}\u0000${e.digest}`) || onLane(ledger, e, run.lane, true)
  }
}
