import {digestOf} from '../../records/digest.js'
import {canonicalJson} from '../../records/canonical.js'
import type {TraceBody, VerificationBody} from '../../records/types.js'
import {initialStateOf} from '../../scenarios/state.js'
import type {Scenario} from '../../scenarios/types.js'
import {TOOL_CATALOG_DIGEST, WORLD_VERSION} from '../../world/catalog.js'
import {stateDigest} from '../../world/digest.js'
import {isoTime, World} from '../../world/world.js'
import {runEpisode, type EpisodeOptions, type EpisodeResult} from '../episode.js'
import {grade} from '../grader/grade.js'
import type {Verdict} from '../grader/types.js'
import {GRADER_DIGEST, GRADER_VERSION} from '../grader/version.js'
import {DEFAULT_MAX_STEPS, SYSTEM_PROMPT} from '../prompt.js'
import {taskMask} from '../runner/mask.js'
import type {EvaluatorIdentity, ReplayingEvaluator, ReplayOutcome} from './port.js'

/**
 * The built-in evaluator: the deterministic enterprise world and its grader. Its digest
 * covers the tool catalog, the grading rules and the system prompt every agent gets, so a
 * change to any of them is a different evaluator.
 */
export const WORLD_EVALUATOR: EvaluatorIdentity = {
  id: 'world',
  version: `${WORLD_VERSION}+${GRADER_VERSION}`,
  digest: digestOf({world: WORLD_VERSION, tools: TOOL_CATALOG_DIGEST, grader: GRADER_DIGEST, system: SYSTEM_PROMPT}),
}

/** The fields of a verification that the grader decides (the rest names what was graded). */
const JUDGED = ['valid', 'passed', 'outcome', 'invariants', 'collateral', 'constraint_violations', 'scores', 'invalid_reason'] as const

/**
 * Re-derive a verification from its trace: rebuild the scenario's world, apply every
 * recorded tool call in order (each state digest, result, error and clock reading must be
 * what the trace says), then grade the final state again. Pure and deterministic; about as
 * costly as the episode minus the agent.
 */
export function replayEpisode(trace: TraceBody, verification: VerificationBody, scenario: Scenario): ReplayOutcome {
  const r = regradeTrace(trace, scenario)
  return r.ok ? sameVerdict(verification, r.verdict) : r
}

/** The most tool calls of a trace exp replays, whatever a run's step limit says. */
export const REPLAY_MAX_CALLS = 1024

/**
 * How many tool calls an episode of a run may have: its manifest's step limit, else its
 * scenario's, else the default (an agent is stopped there), and never more than
 * REPLAY_MAX_CALLS. A longer trace is no episode of the run, and each call costs its replay (up
 * to ~10 ms on a world state grown on purpose: a 1,390-call trace once cost 13 s of CPU).
 */
export function callLimit(limits: {max_steps?: number} | undefined, scenario: Pick<Scenario, 'max_steps'>): number {
  return Math.min(REPLAY_MAX_CALLS, limits?.max_steps ?? scenario.max_steps ?? DEFAULT_MAX_STEPS)
}

/** The verdict the grader gives a trace replayed in a fresh world of its scenario, or why the trace does not replay. */
export function regradeTrace(trace: TraceBody, scenario: Scenario): {ok: true; verdict: Verdict} | {ok: false; reason: string} {
  if (trace.scenario !== scenario.id) return {ok: false, reason: `trace is of scenario ${trace.scenario}, not ${scenario.id}`}
  // a held-out trace holds its task only as tokens: put the text back to replay, mask again to compare
  const m = trace.sealed_task ? taskMask(scenario.task) : undefined
  const hide = <T>(v: T): T => (m ? m.mask(v) : v)
  // what the miner reads besides the calls is the scenario's: a trace naming another task or workflows is not its episode
  if (trace.task !== hide(scenario.task)) return {ok: false, reason: 'its task text is not the scenario\'s'}
  if (trace.workflows !== undefined && canonicalJson(trace.workflows) !== canonicalJson(scenario.workflows)) return {ok: false, reason: `its workflows ${JSON.stringify(trace.workflows)} are not the scenario's ${JSON.stringify(scenario.workflows)}`}
  const world = new World(initialStateOf(scenario))
  if (trace.state_initial !== undefined && trace.state_initial !== stateDigest(world.state)) return {ok: false, reason: 'initial state digest differs from the scenario'}
  const actions: {tool: string; arguments: Record<string, unknown>; ok: boolean; error?: {code: string; message: string}}[] = []
  let latency = 0
  for (const [i, a] of trace.actions.entries()) {
    if (a.index !== i) return {ok: false, reason: `action ${i} is numbered ${a.index}`}
    if (a.state_before !== stateDigest(world.state)) return {ok: false, reason: `action ${i} (${a.tool}): state before differs`}
    const args = m ? m.unmask(a.arguments) : a.arguments
    const step = world.invoke({tool: a.tool, arguments: args})
    if (isoTime(step.at) !== a.timestamp) return {ok: false, reason: `action ${i} (${a.tool}): clock reading differs`}
    if (step.outcome.ok !== a.ok) return {ok: false, reason: `action ${i} (${a.tool}): recorded ${a.ok ? 'success' : 'failure'}, replay gives ${step.outcome.ok ? 'success' : 'failure'}`}
    const got = step.outcome.ok ? step.outcome.result : step.outcome.error
    const want = a.ok ? a.result : a.error
    if (canonicalJson(hide(got) ?? null) !== canonicalJson(want ?? null)) return {ok: false, reason: `action ${i} (${a.tool}): ${a.ok ? 'result' : 'error'} differs`}
    if (a.state_after !== stateDigest(world.state)) return {ok: false, reason: `action ${i} (${a.tool}): state after differs`}
    latency += step.latencyMs
    actions.push(step.outcome.ok ? {tool: a.tool, arguments: args, ok: true} : {tool: a.tool, arguments: args, ok: false, error: step.outcome.error})
  }
  if (trace.state_final !== undefined && trace.state_final !== stateDigest(world.state)) return {ok: false, reason: 'final state digest differs'}
  if (trace.usage.tool_calls !== actions.length) return {ok: false, reason: `usage says ${trace.usage.tool_calls} tool calls, the trace has ${actions.length}`}
  const valid = trace.status === 'completed'
  const verdict = hide(grade({
    spec: scenario,
    initial: world.initialState,
    final: world.state,
    actions,
    usage: {tokens: trace.usage.tokens_in + trace.usage.tokens_out, latency_ms: latency, messages: trace.messages.length},
    valid,
    ...(valid ? {} : {invalid_reason: m ? m.unmask(trace.invalid_reason ?? 'invalid episode') : (trace.invalid_reason ?? 'invalid episode')}),
    ...(trace.step_limit === undefined ? {} : {stepLimit: trace.step_limit}),
  }))
  return {ok: true, verdict}
}

/** Whether a recorded verification says what the grader's verdict says (its grader, and every field the grader decides). */
export function sameVerdict(verification: VerificationBody, verdict: Verdict): ReplayOutcome {
  if (verification.grader.version !== verdict.grader.version || verification.grader.digest !== verdict.grader.digest) return {ok: false, reason: `graded by ${verification.grader.version}, this grader is ${verdict.grader.version}`}
  for (const field of JUDGED) {
    const want = (verification as unknown as Record<string, unknown>)[field]
    const got = (verdict as unknown as Record<string, unknown>)[field]
    if (canonicalJson(want ?? null) !== canonicalJson(got ?? null)) return {ok: false, reason: `re-grading gives another ${field}`}
  }
  return {ok: true}
}

export type WorldJob = EpisodeOptions

/** The world + grader behind the Evaluator port. */
export const worldEvaluator: ReplayingEvaluator<WorldJob, EpisodeResult, TraceBody, VerificationBody, Scenario> = {
  identity: WORLD_EVALUATOR,
  deterministic: true,
  judge: job => runEpisode(job),
  replay: replayEpisode,
}

/** Verifications written before evaluators were named were all the world's. */
export function evaluatorOf(v: {evaluator?: EvaluatorIdentity}): EvaluatorIdentity {
  return v.evaluator ?? LEGACY_WORLD
}

const LEGACY_WORLD: EvaluatorIdentity = {id: 'world', version: 'legacy', digest: WORLD_EVALUATOR.digest}
