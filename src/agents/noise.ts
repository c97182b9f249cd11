import {createHash} from 'node:crypto'
import {seededRandom} from '../evals/stats/prng.js'
import type {Agent, AgentContext, AgentInput, AgentOutcome, ToolCall, ToolInvoker, ToolResult} from './types.js'

/**
 * Seeded slips around any agent (docs/scripted-agent.md, "Noise"): with probability `p` per
 * tool call the agent slips — the call is lost (the agent hears that it got no response),
 * made twice, or made with one argument perturbed — as a sampled LLM does now and then. The
 * slips of an episode are drawn from a stream keyed by the episode seed and the digest of
 * everything the agent was given (system text, skills, task, tools): the same episode gives
 * the same slips (runs stay reproducible and resumable), while two skills that differ by a
 * single byte slip independently, as two prompts of a sampled model would. That is what an
 * A/A audit of the promotion gate needs (`exp audit-gate`): candidates that change nothing
 * still get outcomes that differ from their base's by chance.
 */
export type Slip = 'drop' | 'repeat' | 'perturb'

export const SLIPS: readonly Slip[] = ['drop', 'repeat', 'perturb']

/** What a lost call answers: an error the agent sees; the world never saw the call. */
export const NO_RESPONSE: ToolResult = {ok: false, error: {code: 'NO_RESPONSE', message: 'the call got no response: it was lost on the way (a slip of the agent)'}}

export function parseNoise(text: string): number | undefined {
  if (!/^(?:0|1|0?\.\d+|1\.0*)$/.test(text.trim())) return undefined
  const p = Number(text)
  return p >= 0 && p <= 1 ? p : undefined
}

/** The episode's stream of slip draws: the episode seed and the agent's whole input. */
export function slipStream(input: AgentInput, seed: number): () => number {
  const h = createHash('sha256').update(`noise\0${seed}\0${input.system}\0${input.task}\0`)
  for (const s of input.skills) h.update(`${s.name}\0${s.content}\0`)
  for (const t of input.tools) h.update(`${t.name}\0`)
  return seededRandom(h.digest().readUInt32BE(0))
}

/** One argument changed: a digit of an id moved on, a word cut short, a number off by one, a flag flipped. */
export function perturb(args: Record<string, unknown>, u: number): Record<string, unknown> {
  const keys = Object.keys(args)
    .filter(k => ['string', 'number', 'boolean'].includes(typeof args[k]))
    .sort()
  if (!keys.length) return args
  const key = keys[Math.min(keys.length - 1, Math.floor(u * keys.length))]!
  const v = args[key]
  let out: unknown = v
  if (typeof v === 'number') out = v + 1
  else if (typeof v === 'boolean') out = !v
  else if (typeof v === 'string') {
    const digit = /\d(?=\D*$)/.exec(v)
    out = digit ? `${v.slice(0, digit.index)}${(Number(digit[0]) + 1) % 10}${v.slice(digit.index + 1)}` : v.length > 1 ? v.slice(0, -1) : `${v}x`
  }
  return {...args, [key]: out}
}

class NoisyAgent implements Agent {
  readonly name: string
  readonly model?: string
  readonly params: Record<string, unknown>

  constructor(private readonly inner: Agent, readonly p: number) {
    this.name = inner.name
    if (inner.model !== undefined) this.model = inner.model
    // the noise is part of the experiment: the manifest pins it with the agent
    this.params = {...inner.params, noise: p}
  }

  run(input: AgentInput, tools: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome> {
    const next = slipStream(input, ctx.seed)
    const noisy: ToolInvoker = async (call: ToolCall) => {
      const u = next()
      const kind = SLIPS[Math.min(SLIPS.length - 1, Math.floor(next() * SLIPS.length))]!
      const at = next()
      if (u >= this.p) return tools(call)
      if (kind === 'drop') return NO_RESPONSE
      if (kind === 'repeat') {
        await tools(call)
        return tools(call)
      }
      return tools({...call, arguments: perturb(call.arguments ?? {}, at)})
    }
    return this.inner.run(input, noisy, ctx)
  }

  async close(): Promise<void> {
    await this.inner.close?.()
  }
}

/** `agent` with seeded slips of probability `p` per tool call (p = 0: the agent itself, unchanged, the same experiment). */
export function withNoise(agent: Agent, p: number): Agent {
  return p > 0 ? new NoisyAgent(agent, p) : agent
}
