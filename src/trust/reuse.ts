import type {Vouch} from '../evals/runner/plan.js'
import {onLane} from '../store/index.js'
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
    const pinned = new Set<string>()
    for (const e of ledger.select({kinds: ['evaluation'], cites: run.manifest, includePrivate: true})) {
      if (authority.counts(e.id)) for (const c of e.cites) pinned.add(c)
    }
    return id => {
      const e = ledger.get(id)
      return !!e && (pinned.has(id) || onLane(ledger, e, run.lane, true))
    }
  }
}
