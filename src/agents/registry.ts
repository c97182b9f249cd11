import {AgentSpecError, AgentUnavailableError, UnknownAgentError} from '../errors/agent.js'
import {createCommandAgent, type CommandAgentOptions} from './command/index.js'
import {createOpenAIAgent, type OpenAIAgentOptions} from './openai/index.js'
import {parseNoise, withNoise} from './noise.js'
import type {Agent, AgentContext, AgentInput, AgentOutcome, ToolInvoker} from './types.js'

/** Builds an agent from the part of the spec after `name:` (empty when there is none). */
export type AgentFactory = (arg: string, options: AgentOptions) => Agent

export interface AgentOptions {
  command?: CommandAgentOptions
  openai?: OpenAIAgentOptions
  /** handed to createScriptedAgent() as is */
  scripted?: unknown
  /** extra adapters, or replacements of the built-in ones, by name (e.g. a statically imported scripted agent) */
  factories?: Record<string, AgentFactory>
}

/** What `--agent` accepts, for help texts and the unknown-agent error. */
export const AGENT_SPECS = ['scripted', 'command:PROGRAM [ARGS]', 'openai:MODEL'] as const

/** The built-in profiles of the scripted agent besides the naive one (src/agents/scripted/profiles.ts, docs/scripted-agent.md). */
export const SCRIPTED_PROFILES = ['careless', 'literal', 'cautious'] as const

/** The seeded-slips wrapper (src/agents/noise.ts), in the two ways `--agent` can ask for it. */
export const NOISE_SPECS = ['scripted:noise=P', 'noise:P:SPEC'] as const

const BUILT_IN: Record<string, AgentFactory> = {
  scripted: (arg, o) => {
    const noise = /^noise=(.*)$/.exec(arg)
    if (noise) return noisy(`scripted:${arg}`, noise[1]!, 'scripted', o)
    if (!arg) return lazyScripted(o.scripted)
    if (!(SCRIPTED_PROFILES as readonly string[]).includes(arg)) throw new AgentSpecError(`scripted:${arg}`, `no scripted profile named ${JSON.stringify(arg)}`, `write scripted, scripted:PROFILE with PROFILE one of ${SCRIPTED_PROFILES.join(', ')}, or scripted:noise=0.1 for seeded slips`)
    return lazyScripted({...(o.scripted as object | undefined), profile: arg})
  },
  // noise:P:SPEC: any agent, with seeded slips of probability P per tool call
  noise: (arg, o) => {
    const colon = arg.indexOf(':')
    if (colon < 0) throw new AgentSpecError(`noise:${arg}`, 'no agent given after the probability', 'write noise:P:SPEC, e.g. noise:0.1:scripted or noise:0.05:openai:gpt-4o-mini')
    return noisy(`noise:${arg}`, arg.slice(0, colon), arg.slice(colon + 1), o)
  },
  command: (arg, o) => createCommandAgent(arg, o.command),
  openai: (arg, o) => {
    if (!arg.trim()) throw new AgentSpecError('openai:', 'no model given', 'name the model, e.g. openai:gpt-4o-mini or openai:llama3.1:8b')
    return createOpenAIAgent(arg, o.openai)
  },
}

/**
 * `--agent SPEC` → an Agent. SPEC is `NAME` or `NAME:ARG`; only the first colon splits, so
 * `openai:llama3.1:8b` is the model `llama3.1:8b`. Unknown names raise E_UNKNOWN_AGENT.
 */
export function createAgent(spec: string, options: AgentOptions = {}): Agent {
  const colon = spec.indexOf(':')
  const name = colon < 0 ? spec : spec.slice(0, colon)
  const arg = colon < 0 ? '' : spec.slice(colon + 1)
  const factories = {...BUILT_IN, ...options.factories}
  const factory = Object.hasOwn(factories, name) ? factories[name] : undefined
  if (!factory) {
    const extra = Object.keys(options.factories ?? {}).filter(n => !Object.hasOwn(BUILT_IN, n))
    throw new UnknownAgentError(spec, [...AGENT_SPECS, ...extra])
  }
  return factory(arg, options)
}

/** Like createAgent, but with any lazily loaded adapter loaded, so `model` and `params` are final. */
export async function loadAgent(spec: string, options: AgentOptions = {}): Promise<Agent> {
  const agent = createAgent(spec, options)
  return agent instanceof LazyAgent ? agent.load() : agent
}

const SCRIPTED_MODULE = './scripted/index.js'

function noisy(spec: string, p: string, inner: string, o: AgentOptions): Agent {
  const prob = parseNoise(p)
  if (prob === undefined) throw new AgentSpecError(spec, `the noise ${JSON.stringify(p)} is not a probability`, 'give a number from 0 to 1, e.g. scripted:noise=0.1')
  const agent = createAgent(inner, o)
  return new LazyAgent(agent.name, async () => withNoise(agent instanceof LazyAgent ? await agent.load() : agent, prob))
}

function lazyScripted(options: unknown): Agent {
  return new LazyAgent('scripted', async () => {
    let mod: {createScriptedAgent?: (o?: unknown) => Agent; ScriptedAgent?: new (o?: unknown) => Agent}
    try {
      mod = (await import('./scripted/index.js')) as typeof mod
    } catch (e) {
      throw new AgentUnavailableError('scripted', e instanceof Error ? e.message : String(e))
    }
    // the factory is the agreed entry; the class is accepted so either shape merges cleanly
    if (typeof mod.createScriptedAgent === 'function') return mod.createScriptedAgent(options)
    if (typeof mod.ScriptedAgent === 'function') return new mod.ScriptedAgent(options)
    throw new AgentUnavailableError('scripted', `${SCRIPTED_MODULE} exports neither createScriptedAgent() nor ScriptedAgent`)
  })
}

/** An agent whose module is imported on first use, so a plain `exp --help` stays fast. */
class LazyAgent implements Agent {
  private loading: Promise<Agent> | undefined
  private loaded: Agent | undefined

  constructor(readonly name: string, private readonly importer: () => Promise<Agent>) {}

  get model(): string | undefined {
    return this.loaded?.model
  }

  get params(): Record<string, unknown> | undefined {
    return this.loaded?.params
  }

  load(): Promise<Agent> {
    this.loading ??= this.importer().then(a => (this.loaded = a))
    return this.loading
  }

  async run(input: AgentInput, tools: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome> {
    return (await this.load()).run(input, tools, ctx)
  }

  async close(): Promise<void> {
    await this.loaded?.close?.()
  }
}
