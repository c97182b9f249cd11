import type {Agent, AgentOutcome, Message, SkillText, ToolInvoker, ToolSpec} from '../agents/types.js'
import type {Split} from '../records/types.js'
import {initialStateOf} from '../scenarios/state.js'
import type {Scenario} from '../scenarios/types.js'
import {TOOL_SPECS} from '../world/catalog.js'
import {stateDigest} from '../world/digest.js'
import {isoTime, World, type Step} from '../world/world.js'
import {grade} from './grader/grade.js'
import type {Verdict} from './grader/types.js'
import {DEFAULT_MAX_STEPS, SYSTEM_PROMPT} from './prompt.js'
import {redactDeep, type Redact} from '../redact/index.js'

/**
 * The pure episode runner: no git, no store, no wall clock. It builds the world from the
 * scenario, hands the agent only its input (system text, skills, task, tool specs),
 * records every call through the ToolInvoker, and grades the final state.
 */
export interface EpisodeOptions {
  scenario: Scenario
  agent: Agent
  skills: readonly SkillText[]
  seed: number
  repetition?: number
  /** default: the scenario's max_steps, else DEFAULT_MAX_STEPS */
  maxSteps?: number
  system?: string
  tools?: readonly ToolSpec[]
  /**
   * Applied to everything that comes from the agent before it reaches the world or a
   * record: tool arguments (so the world never holds a secret an agent passed), messages,
   * the final answer and failure reasons (docs/trust.md: redaction on every write).
   */
  redact?: Redact
  /** the runner gives up on the episode (its run is stopping): the agent is cancelled, as by ctx.signal */
  signal?: AbortSignal
}

/** One recorded call: the `actions[]` item of a trace body. */
export interface EpisodeAction {
  index: number
  tool: string
  arguments: Record<string, unknown>
  ok: boolean
  result?: unknown
  error?: {code: string; message: string}
  timestamp: string
  state_before: string
  state_after: string
}

/** Everything a trace body and a verification body need, except record ids and refs. */
export interface EpisodeResult {
  scenario: string
  split: Split
  workflows: string[]
  repetition: number
  seed: number
  task: string
  messages: Message[]
  actions: EpisodeAction[]
  final_answer: string | null
  usage: {tool_calls: number; tokens_in: number; tokens_out: number; latency_ms: number; cached?: boolean}
  status: 'completed' | 'invalid'
  invalid_reason?: string
  /** the agent asked for a call past this many: the runner stopped it */
  step_limit?: number
  state_initial: string
  state_final: string
  verdict: Verdict
}

class StepLimitReached extends Error {
  constructor(readonly limit: number) {
    super(`step limit of ${limit} tool calls reached`)
  }
}

interface Played {
  world: World
  steps: Step[]
  outcome?: AgentOutcome
  invalid?: string
  truncated?: number
}

/** Run the agent against a fresh world; never throws for agent failures. */
async function play(o: EpisodeOptions): Promise<Played> {
  const world = new World(initialStateOf(o.scenario))
  const steps: Step[] = []
  const maxSteps = o.maxSteps ?? o.scenario.max_steps ?? DEFAULT_MAX_STEPS
  // created only if an agent asks for the signal: most never do, and it is not free
  let abort: AbortController | undefined
  let truncated: number | undefined
  const invoke: ToolInvoker = async call => {
    if (steps.length >= maxSteps) {
      truncated = maxSteps
      abort?.abort()
      throw new StepLimitReached(maxSteps)
    }
    // (the tool's name too: it is recorded, and the world's "no tool named …" repeats it)
    const step = world.invoke(o.redact ? {...call, tool: typeof call.tool === 'string' ? o.redact(call.tool) : call.tool, arguments: redactDeep(call.arguments ?? {}, o.redact)} : call)
    steps.push(step)
    return step.outcome
  }
  const input = {system: o.system ?? SYSTEM_PROMPT, skills: o.skills, task: o.scenario.task, tools: o.tools ?? TOOL_SPECS}
  // the runner's cancel reaches the agent through its own signal (removed when the episode ends:
  // one runner signal serves every episode of a run)
  const cancel = () => abort?.abort()
  try {
    const ctx = {
      seed: o.seed,
      repetition: o.repetition ?? 0,
      maxSteps,
      get signal(): AbortSignal {
        if (!abort) {
          abort = new AbortController()
          if (o.signal?.aborted) abort.abort()
          else o.signal?.addEventListener('abort', cancel, {once: true})
        }
        return abort.signal
      },
    }
    const raw = await o.agent.run(input, invoke, ctx)
    const outcome = o.redact ? redactOutcome(raw, o.redact) : raw
    if (outcome.invalid) return {world, steps, outcome, invalid: outcome.invalid.reason, truncated}
    return {world, steps, outcome, truncated}
  } catch (e) {
    if (e instanceof StepLimitReached || truncated !== undefined) return {world, steps, truncated}
    const why = `agent error: ${e instanceof Error ? e.message : String(e)}`
    return {world, steps, invalid: o.redact ? o.redact(why) : why}
  } finally {
    o.signal?.removeEventListener('abort', cancel)
  }
}

function redactOutcome(o: AgentOutcome, redact: Redact): AgentOutcome {
  return {
    ...o,
    finalAnswer: o.finalAnswer === null ? null : redact(o.finalAnswer),
    messages: redactDeep(o.messages, redact),
    ...(o.invalid ? {invalid: {reason: redact(o.invalid.reason)}} : {}),
  }
}

function verdictOf(o: EpisodeOptions, p: Played): Verdict {
  const latency = p.steps.reduce((s, x) => s + x.latencyMs, 0)
  const usage = p.outcome?.usage
  return grade({
    spec: o.scenario,
    initial: p.world.initialState,
    final: p.world.state,
    actions: p.steps.map(s => (s.outcome.ok ? {tool: s.tool, arguments: s.arguments, ok: true} : {tool: s.tool, arguments: s.arguments, ok: false, error: s.outcome.error})),
    usage: {tokens: (usage?.tokensIn ?? 0) + (usage?.tokensOut ?? 0), latency_ms: latency, messages: p.outcome?.messages.length ?? 0},
    valid: p.invalid === undefined,
    ...(p.invalid === undefined ? {} : {invalid_reason: p.invalid}),
    ...(p.truncated === undefined ? {} : {stepLimit: p.truncated}),
  })
}

/** Play and grade only: what a success-rate sweep needs, without transcripts or digests. */
export async function gradeEpisode(o: EpisodeOptions): Promise<Verdict> {
  return verdictOf(o, await play(o))
}

export async function runEpisode(o: EpisodeOptions): Promise<EpisodeResult> {
  const p = await play(o)
  const verdict = verdictOf(o, p)
  const actions: EpisodeAction[] = p.steps.map(s => {
    const a: EpisodeAction = {index: s.index, tool: s.tool, arguments: s.arguments, ok: s.outcome.ok, timestamp: isoTime(s.at), state_before: stateDigest(s.before), state_after: stateDigest(s.after)}
    if (s.outcome.ok) a.result = s.outcome.result
    else a.error = s.outcome.error
    return a
  })
  const usage = p.outcome?.usage
  const result: EpisodeResult = {
    scenario: o.scenario.id,
    split: o.scenario.split,
    workflows: o.scenario.workflows,
    repetition: o.repetition ?? 0,
    seed: o.seed,
    task: o.scenario.task,
    messages: p.outcome?.messages ?? [],
    actions,
    final_answer: p.outcome?.finalAnswer ?? null,
    usage: {tool_calls: actions.length, tokens_in: usage?.tokensIn ?? 0, tokens_out: usage?.tokensOut ?? 0, latency_ms: verdict.scores.latency_ms},
    status: p.invalid === undefined ? 'completed' : 'invalid',
    state_initial: stateDigest(p.world.initialState),
    state_final: stateDigest(p.world.state),
    verdict,
  }
  if (usage?.cached !== undefined) result.usage.cached = usage.cached
  if (p.invalid !== undefined) result.invalid_reason = p.invalid
  if (p.truncated !== undefined) result.step_limit = p.truncated
  return result
}

/**
 * `r` as an invalid episode that keeps nothing the agent said or did: no messages, no tool
 * calls, no answer, the world as the scenario starts it, graded again as invalid for `reason`
 * (so it replays: src/evals/evaluator/world.ts). What the runner records in place of an
 * episode whose records the store would refuse for a secret the redactor left
 * (src/evals/runner/session.ts): the episode ends invalid, the run goes on.
 */
export function withheldEpisode(r: EpisodeResult, scenario: Scenario, reason: string): EpisodeResult {
  const world = new World(initialStateOf(scenario))
  const verdict = grade({
    spec: scenario,
    initial: world.initialState,
    final: world.state,
    actions: [],
    usage: {tokens: r.usage.tokens_in + r.usage.tokens_out, latency_ms: 0, messages: 0},
    valid: false,
    invalid_reason: reason,
  })
  const {step_limit: _limit, ...rest} = r
  return {
    ...rest,
    messages: [],
    actions: [],
    final_answer: null,
    usage: {tool_calls: 0, tokens_in: r.usage.tokens_in, tokens_out: r.usage.tokens_out, latency_ms: verdict.scores.latency_ms, ...(r.usage.cached === undefined ? {} : {cached: r.usage.cached})},
    status: 'invalid',
    invalid_reason: reason,
    state_final: stateDigest(world.state),
    verdict,
  }
}
