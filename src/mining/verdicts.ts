import type {ManifestBody, TraceBody, VerificationBody} from '../records/types.js'
import type {Scenario} from '../scenarios/types.js'
import {callLimit, evaluatorOf, regradeTrace, sameVerdict} from '../evals/evaluator/world.js'

/**
 * Whether a recorded verdict is the grader's: `stands`, it is; `forged`, the grader gives
 * another (or the trace does not replay); `unreplayable`, it cannot be told here (the
 * scenarios its manifest pins are not the ones at hand). The miner learns from verdicts that
 * stand only: any lane can append a verification, with any verdict, of any trace.
 */
export type VerdictStanding = {stands: true} | {stands: false; why: 'forged' | 'unreplayable'; reason: string}

/** How the miner tells a verdict the grader gave from one a lane wrote (replayedVerdicts; a unit test of hand-made runs brings its own). */
export type VerdictCheck = (trace: {digest: string; body: TraceBody}, verification: VerificationBody, manifest: ManifestBody) => VerdictStanding

/** A trace's verdict re-derived (or why it does not replay). */
export type Regraded = ReturnType<typeof regradeTrace>

/** Verdicts kept by a memo of replayedVerdicts before it starts again (~1 KB each). */
const REGRADED_MAX = 100_000

/**
 * The grader's verdicts, re-derived: each trace is replayed in a fresh world of its scenario
 * and graded again (src/evals/evaluator/world.ts; once per trace, whatever number of
 * verifications judge it). `scenarios(tree)`: the scenarios of a dataset tree a manifest
 * pins, when they are at hand, else why not. `regraded`: verdicts already re-derived, by
 * dataset tree and trace digest (the loop's miner reads every iteration's runs again: it
 * replays each trace once per process).
 */
export function replayedVerdicts(scenarios: (tree: string) => ReadonlyMap<string, Scenario> | string, regraded: Map<string, Regraded> = new Map()): VerdictCheck {
  return (trace, v, m) => {
    const who = evaluatorOf(v)
    if (who.id !== 'world') return {stands: false, why: 'forged', reason: `judged by evaluator ${who.id}: the miner learns from the world's grader only`}
    const source = scenarios(m.dataset.tree)
    if (typeof source === 'string') return {stands: false, why: 'unreplayable', reason: source}
    const scenario = source.get(trace.body.scenario)
    if (!scenario) return {stands: false, why: 'forged', reason: `scenario ${trace.body.scenario} is not in the dataset its manifest pins`}
    const limit = callLimit(m.limits, scenario)
    if (trace.body.actions.length > limit) return {stands: false, why: 'forged', reason: `${trace.body.actions.length} tool calls, more than its run allows (${limit})`}
    const key = `${m.dataset.tree}\u0000${trace.digest}`
    let r = regraded.get(key)
    if (!r) {
      r = regradeTrace(trace.body, scenario)
      if (regraded.size >= REGRADED_MAX) regraded.clear()
      regraded.set(key, r)
    }
    if (!r.ok) return {stands: false, why: 'forged', reason: `the trace does not replay: ${r.reason}`}
    const same = sameVerdict(v, r.verdict)
    return same.ok ? {stands: true} : {stands: false, why: 'forged', reason: same.reason}
  }
}
