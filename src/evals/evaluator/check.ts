import {citedEntry, type Ledger, type LedgerEntry} from '../../store/index.js'
import type {Scenario} from '../../scenarios/types.js'
import type {ManifestBody, TraceBody, VerificationBody} from '../../records/types.js'
import type {ReplayOutcome} from './port.js'
import {callLimit, evaluatorOf, replayEpisode} from './world.js'

export interface VerificationCheck {
  /** the manifest the verification must belong to */
  manifest?: string
  /** evaluator ids whose verifications count (the policy's `evidence.evaluators`) */
  evaluators?: readonly string[]
  /** when given, the trace is replayed in a fresh world and graded again */
  scenario?: Scenario
}

/**
 * Whether one verification record stands: it judges a trace of this ledger (same digest,
 * manifest, scenario, split and repetition), under an allowed evaluator, and — with a
 * scenario to replay against — re-grading the replayed trace gives the same verdict. `at`: an
 * id (the copy every view shows) or the entry of one copy; its trace is the copy with the
 * digest it judged (store/own.ts, citedEntry).
 */
export function checkVerification(ledger: Ledger, at: string | LedgerEntry, o: VerificationCheck = {}): ReplayOutcome {
  const id = typeof at === 'string' ? at : at.id
  const e = typeof at === 'string' ? ledger.get(at) : at
  if (!e) return {ok: false, reason: `verification ${id} is not in the ledger`}
  if (e.kind !== 'verification') return {ok: false, reason: `${id} is a ${e.kind}, not a verification`}
  const v = ledger.load<'verification'>(e).body as VerificationBody
  if (o.manifest !== undefined && v.manifest !== o.manifest) return {ok: false, reason: `verification ${id} belongs to manifest ${v.manifest}, not ${o.manifest}`}
  const who = evaluatorOf(v)
  if (o.evaluators && !o.evaluators.includes(who.id)) return {ok: false, reason: `verification ${id} was judged by evaluator ${who.id}, which the policy does not name`}
  if (!e.cites.includes(v.trace)) return {ok: false, reason: `verification ${id} does not cite its trace ${v.trace}`}
  const t = citedEntry(ledger, v.trace, e, v.trace_digest)
  if (!t || t.kind !== 'trace') return {ok: false, reason: `verification ${id} judges trace ${v.trace}, which is not in the ledger`}
  if (t.digest !== v.trace_digest) return {ok: false, reason: `verification ${id} judged other bytes than trace ${v.trace} holds`}
  if (!t.cites.includes(v.manifest)) return {ok: false, reason: `trace ${v.trace} is not of manifest ${v.manifest}`}
  // the trace body (large) is read only to replay it
  if (!o.scenario) return {ok: true}
  const trace = ledger.load<'trace'>(t).body as TraceBody
  if (trace.manifest !== v.manifest || trace.scenario !== v.scenario || trace.split !== v.split || (trace.repetition ?? 0) !== (v.repetition ?? 0)) return {ok: false, reason: `verification ${id} and trace ${v.trace} name different episodes`}
  if (who.id !== 'world') return {ok: false, reason: `verification ${id}: evaluator ${who.id} cannot be replayed`}
  // (a trace longer than its run allows is no episode of it, and is not replayed: reuse, fsck and the miner alike)
  const m = citedEntry(ledger, v.manifest, t)
  const limit = callLimit(m?.kind === 'manifest' ? (ledger.load<'manifest'>(m).body as ManifestBody).limits : undefined, o.scenario)
  if (trace.actions.length > limit) return {ok: false, reason: `verification ${id}: replay: its trace has ${trace.actions.length} tool calls, more than its run allows (${limit})`}
  const r = replayOnce(trace, v, o.scenario, `${e.digest} ${t.digest}`)
  return r.ok ? r : {ok: false, reason: `verification ${id}: replay: ${r.reason}`}
}

// what replaying a trace gave, by the digests of the verification's and the trace's bytes, for
// each scenario (a replay depends on nothing else: a fresh world of the scenario, the trace's
// calls, the verdict): a process checks the same evaluations again at every decision that
// cites them (exp evolve -n 40 on the example: 4,924 replays of 1,724 verifications)
const replayed = new WeakMap<Scenario, Map<string, ReplayOutcome>>()

function replayOnce(trace: TraceBody, v: VerificationBody, scenario: Scenario, key: string): ReplayOutcome {
  let known = replayed.get(scenario)
  if (!known) replayed.set(scenario, (known = new Map()))
  let r = known.get(key)
  if (!r) known.set(key, (r = Object.freeze(replayEpisode(trace, v, scenario))))
  return r
}
