import {AgentSpecError} from '../../errors/agent.js'
import type {Agent, AgentContext, AgentInput, AgentOutcome, ToolInvoker} from '../types.js'
import {splitCommandLine} from './argv.js'
import {runEpisode, type EpisodeLimits} from './episode.js'
import {PROTOCOL_VERSION} from './protocol.js'
import {episodeSandbox, prepareLaunch, splitEnvWords, type Prepared, type SandboxOptions} from './sandbox.js'
import {rm} from 'node:fs/promises'

export {PROTOCOL_VERSION} from './protocol.js'
export {splitCommandLine} from './argv.js'

export interface CommandAgentOptions extends Partial<EpisodeLimits> {
  /** where variables named by `--env NAME` are taken from (default: exp's own environment); the agent gets only those, PATH and a temporary HOME */
  env?: NodeJS.ProcessEnv
  /** the repository to keep the agent out of, and how (docs/agent-protocol.md) */
  sandbox?: Omit<SandboxOptions, 'env'>
}

export const COMMAND_DEFAULTS: EpisodeLimits = {
  timeoutMs: 10 * 60_000,
  stepTimeoutMs: 2 * 60_000,
  maxLineBytes: 4 * 1024 * 1024,
  maxSaidBytes: 256 * 1024,
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
  const {pass, rest} = splitEnvWords(words)
  if (rest.length === 0) throw new AgentSpecError(spec, 'no program given after --env', 'name the program to run after the variables, e.g. command:--env OPENAI_API_KEY python3 agent.py')
  const [program, ...args] = rest as [string, ...string[]]
  const {env, sandbox, ...limits} = options
  const resolved: EpisodeLimits = {...COMMAND_DEFAULTS, ...stripUndefined(limits)}
  const box: SandboxOptions = {...sandbox, ...(env ? {env} : {})}
  let prepared: Promise<Prepared> | undefined
  return {
    name: spec,
    params: {protocol: PROTOCOL_VERSION},
    async run(input: AgentInput, tools: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome> {
      prepared ??= prepareLaunch(program, args, box)
      const sb = await episodeSandbox(await prepared, pass, box)
      if (sb.isolation === 'none' && box.root && box.isolation !== 'none') warnUnisolated()
      try {
        return await runEpisode({program: sb.program, args: sb.args, cwd: sb.cwd, env: sb.env, sandboxed: sb.isolation === 'namespace' || sb.isolation === 'userns'}, resolved, input, tools, ctx)
      } finally {
        await sb.cleanup()
      }
    },
    async close(): Promise<void> {
      const files = prepared && (await prepared.catch(() => undefined))?.files
      if (files) await rm(files, {recursive: true, force: true})
    },
  }
}

let warned = false

/** Once per process: the agent could read the repository by an absolute path (docs/agent-protocol.md, "Sandbox"). */
function warnUnisolated(): void {
  if (warned) return
  warned = true
  process.stderr.write('warning: command agents are not isolated on this machine (neither unshare nor bwrap can make a mount namespace): each starts in an empty folder with a scrubbed environment, but could read the repository by an absolute path; a sealed held-out split stays unreadable (docs/agent-protocol.md)\n')
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}
