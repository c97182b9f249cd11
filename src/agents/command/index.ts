import {AgentSpecError} from '../../errors/agent.js'
import type {Agent, AgentContext, AgentInput, AgentOutcome, ToolInvoker} from '../types.js'
import {splitCommandLine} from './argv.js'
import {runEpisode, type EpisodeLimits} from './episode.js'
import {PROTOCOL_VERSION} from './protocol.js'

export {PROTOCOL_VERSION} from './protocol.js'
export {splitCommandLine} from './argv.js'

export interface CommandAgentOptions extends Partial<EpisodeLimits> {
  /** working folder of the agent process (default: exp's own) */
  cwd?: string
  /** environment of the agent process (default: exp's own, so the agent finds its own API keys) */
  env?: NodeJS.ProcessEnv
}

export const COMMAND_DEFAULTS: EpisodeLimits = {
  timeoutMs: 10 * 60_000,
  stepTimeoutMs: 2 * 60_000,
  maxLineBytes: 4 * 1024 * 1024,
  stderrBytes: 64 * 1024,
  politeExitMs: 1000,
  killGraceMs: 2000,
  drainMs: 500,
}

/**
 * `command:PROGRAM [ARGS]`: any program that speaks the JSON Lines protocol (see
 * docs/agent-protocol.md). One fresh process per episode, started without a shell.
 * `commandLine` is the part after `command:`.
 */
export function createCommandAgent(commandLine: string, options: CommandAgentOptions = {}): Agent {
  const spec = `command:${commandLine}`
  const words = splitCommandLine(commandLine)
  if (words === null) throw new AgentSpecError(spec, 'unterminated quote or trailing backslash', "quote arguments like a shell would: command:'./my agent.py' --flag")
  if (words.length === 0) throw new AgentSpecError(spec, 'no program given', 'name the program to run, e.g. command:node examples/agents/echo-agent.mjs')
  const [program, ...args] = words as [string, ...string[]]
  const {cwd, env, ...limits} = options
  const resolved: EpisodeLimits = {...COMMAND_DEFAULTS, ...stripUndefined(limits)}
  return {
    name: spec,
    params: {protocol: PROTOCOL_VERSION},
    run(input: AgentInput, tools: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome> {
      return runEpisode({program, args, cwd, env}, resolved, input, tools, ctx)
    },
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}
