import {readdirSync, readFileSync} from 'node:fs'
import type {AgentContext, AgentInput, ToolCall, ToolInvoker, ToolResult, ToolSpec} from '../../src/agents/types.js'

export const TOOLS: ToolSpec[] = [
  {name: 'search_documents', description: 'Full-text search over company documents.', parameters: {type: 'object', properties: {query: {type: 'string'}}, required: ['query']}},
  {name: 'get_employee', description: 'Look up one employee by id.', parameters: {type: 'object', properties: {employee_id: {type: 'string'}}, required: ['employee_id']}},
]

export function agentInput(over: Partial<AgentInput> = {}): AgentInput {
  return {
    system: 'You are an IT onboarding assistant.',
    skills: [{name: 'onboarding', content: '---\nname: onboarding\n---\nCheck the employee exists first.'}],
    task: 'Onboard E-104 with a laptop.',
    tools: TOOLS,
    ...over,
  }
}

export function context(over: Partial<AgentContext> = {}): AgentContext {
  return {seed: 7, repetition: 0, maxSteps: 10, ...over}
}

/** A tool invoker that records every call and answers from a small table, like the runner would. */
export function recordingTools(): {calls: ToolCall[]; invoke: ToolInvoker} {
  const calls: ToolCall[] = []
  const invoke: ToolInvoker = async call => {
    calls.push(call)
    const answer: ToolResult = call.tool === 'get_employee'
      ? call.arguments.employee_id === 'E-104' ? {ok: true, result: {id: 'E-104', name: 'Ada'}} : {ok: false, error: {code: 'NOT_FOUND', message: 'no such employee'}}
      : call.tool === 'search_documents' ? {ok: true, result: [{doc: 'laptop-policy'}]} : {ok: false, error: {code: 'UNKNOWN_TOOL', message: `no tool ${call.tool}`}}
    return answer
  }
  return {calls, invoke}
}

/** Pids whose parent is this process (zombies included): none may be left after an episode. Linux only. */
export function childPids(): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      // (esbuild's service is the test loader's own child: tsx, .taprc)
      if (ppid === process.pid && readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'esbuild') out.push(Number(name))
    } catch {
      // exited while we looked
    }
  }
  return out
}

/** True while the pid runs (a zombie, already dead and awaiting its reaper, does not count). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** Our environment minus the test runner's hooks, so fixture agents start as fast as in production. */
export function agentEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !k.startsWith('_TAPJS_') && !k.startsWith('TAP')))
}
