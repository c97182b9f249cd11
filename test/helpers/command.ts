import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {Test} from 'tap'
import {createCommandAgent, type CommandAgentOptions} from '../../src/agents/command/index.js'
import type {AgentContext, AgentOutcome, ToolInvoker} from '../../src/agents/types.js'
import {agentEnv, agentInput, childPids, context, recordingTools} from './agents.js'

// Real child processes throughout: the command adapter's whole job is process handling.
const root = fileURLToPath(new URL('../../', import.meta.url))
const node = `'${process.execPath}'`
export const echoAgent = `${node} '${join(root, 'examples/agents/echo-agent.mjs')}'`
export const misbehaving = (mode: string, ...rest: string[]) => `${node} '${join(root, 'test/fixtures/agents/misbehaving-agent.mjs')}' ${mode} ${rest.join(' ')}`
export const FAST: CommandAgentOptions = {stepTimeoutMs: 5000, timeoutMs: 10_000, killGraceMs: 300, politeExitMs: 300, drainMs: 300, env: agentEnv()}

/** Runs one episode, then checks that no child of ours is left, zombie or alive. */
export async function episode(t: Test, command: string, opts: CommandAgentOptions = {}, ctx: Partial<AgentContext> = {}, invoke?: ToolInvoker): Promise<AgentOutcome> {
  const agent = createCommandAgent(command, {...FAST, ...opts})
  const out = await agent.run(agentInput(), invoke ?? recordingTools().invoke, context(ctx))
  t.same(childPids(), [], 'no child process left behind')
  return out
}
