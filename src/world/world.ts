import type {ToolCall, ToolResult} from '../agents/types.js'
import {toolDef} from './catalog.js'
import {stateDigest} from './digest.js'
import {Tx} from './state.js'
import type {WorldState} from './types.js'

/** One executed call, as the world saw it (the runner turns it into a trace action). */
export interface Step {
  index: number
  tool: string
  arguments: Record<string, unknown>
  outcome: ToolResult
  /** simulated clock when the call started, in ms since the epoch (see isoTime) */
  at: number
  /** simulated latency of the call */
  latencyMs: number
  /** the states around the call (immutable; digest them with stateDigest when recording) */
  before: WorldState
  after: WorldState
}

/** A simulated clock reading as an ISO UTC timestamp (the trace format). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString()
}

/** Simulated think time added to the clock between two calls, on top of each tool's latency. */
const STEP_GAP_MS = 1000

/**
 * The deterministic world: one state, mutated only through tools, with a simulated clock.
 * `reset` returns to the initial state; nothing here reads the wall clock or randomness.
 */
export class World {
  private current: WorldState
  private clockMs: number
  private steps = 0

  constructor(private readonly initial: WorldState) {
    this.current = initial
    this.clockMs = Date.parse(initial.settings.now)
  }

  get state(): WorldState {
    return this.current
  }

  get initialState(): WorldState {
    return this.initial
  }

  now(): string {
    return isoTime(this.clockMs)
  }

  digest(): string {
    return stateDigest(this.current)
  }

  reset(): void {
    this.current = this.initial
    this.clockMs = Date.parse(this.initial.settings.now)
    this.steps = 0
  }

  /**
   * Run one tool call against the state; never throws for bad calls, they become errors.
   * Digests are not computed here: states are immutable, so the recorder digests them
   * once when it needs them (and a success-rate sweep never pays for it).
   */
  invoke(call: ToolCall): Step {
    const before = this.current
    const at = this.clockMs
    const def = toolDef(call.tool)
    let outcome: ToolResult
    let latencyMs = 50
    if (!def) {
      outcome = {ok: false, error: {code: 'UNKNOWN_TOOL', message: `no tool named ${call.tool}`}}
    } else {
      latencyMs = def.latencyMs
      const args = call.arguments ?? {}
      if (!def.validate(args)) {
        const e = def.validate.errors?.[0]
        outcome = {ok: false, error: {code: 'INVALID_ARGUMENTS', message: `arguments${e?.instancePath ?? ''} ${e?.message ?? 'are invalid'}`}}
      } else {
        const tx = new Tx(this.current, at)
        outcome = def.run(tx, args)
        // a failed call leaves the state untouched, whatever the tool did before failing
        if (outcome.ok) this.current = tx.state
      }
    }
    this.clockMs += latencyMs + STEP_GAP_MS
    return {index: this.steps++, tool: call.tool, arguments: call.arguments, outcome, at, latencyMs, before, after: this.current}
  }
}
