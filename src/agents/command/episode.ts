import {invalidOutcome, type InvalidCode} from '../invalid.js'
import {openingMessages, toolResultContent} from '../transcript.js'
import type {AgentContext, AgentInput, AgentOutcome, Message, ToolInvoker, Usage} from '../types.js'
import {AgentProcess} from './process.js'
import {parseAgentLine, preview, startMessage, toolResultMessage, type ToolCallMessage} from './protocol.js'

export interface EpisodeLimits {
  /** wall-clock limit of the whole episode, tool execution included */
  timeoutMs: number
  /** longest the agent may stay silent after exp wrote to it (start or a tool result) */
  stepTimeoutMs: number
  /** a stdout line longer than this is a protocol error (protects our memory) */
  maxLineBytes: number
  /**
   * what the agent may say in one episode (its answer and its tool calls' arguments, UTF-8):
   * more is a protocol error. The trace keeps each twice (messages and actions or the answer)
   * and a trace over the store's record limit (1 MiB) stopped the whole run, and every rerun
   */
  maxSaidBytes: number
  /** how much of the agent's stderr is kept for diagnostics */
  stderrBytes: number
  /** after the final answer, how long the agent may take to exit on its own */
  politeExitMs: number
  /** after SIGTERM, how long before SIGKILL */
  killGraceMs: number
  /** after the process exited, how long to wait for the rest of its stdout */
  drainMs: number
}

export interface Launch {
  program: string
  args: readonly string[]
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** the program runs inside the namespace sandbox's wrapper (sandbox.ts), whose own setup failures exit with SANDBOX_SETUP_EXIT */
  sandboxed?: boolean
}

/**
 * The exit status of the namespace sandbox's wrapper when it cannot set the sandbox up (a
 * folder to keep is gone, a mount refused): it says why on stderr, `exp sandbox: …`, and the
 * program never starts. Not the agent's crash: the episode could not start (`spawn`).
 */
export const SANDBOX_SETUP_EXIT = 97
const SANDBOX_SAYS = /^exp sandbox: .*$/m

/**
 * One episode with one fresh process. Every way it can end becomes an AgentOutcome: the
 * only promise rejection left is a bug in this file. The child is reaped before we return.
 */
export async function runEpisode(launch: Launch, limits: EpisodeLimits, input: AgentInput, tools: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome> {
  const messages: Message[] = openingMessages(input)
  const usage: Usage = {tokensIn: 0, tokensOut: 0}
  if (ctx.signal?.aborted) return invalidOutcome('aborted', 'cancelled before start', messages, usage)

  const proc = new AgentProcess(launch.program, launch.args, {cwd: launch.cwd, env: launch.env, maxLineBytes: limits.maxLineBytes, stderrBytes: limits.stderrBytes})
  const onAbort = () => proc.push({kind: 'abort'})
  ctx.signal?.addEventListener('abort', onAbort, {once: true})
  let answered = false
  try {
    const fail = (code: InvalidCode, detail: string) => {
      const err = proc.stderrTail()
      return invalidOutcome(code, err.trim() ? `${detail}; stderr: ${err.trim()}` : detail, messages, usage)
    }
    const exitDetail = (): [InvalidCode, string] => {
      const st = proc.exitStatus
      // the wrapper's own failure, before the program ran (it never wrote a line): an infrastructure
      // failure, retried by the next run, never the agent's crash. (An agent that prints the same
      // and exits 97 gains nothing a sleep to the step timeout would not: invalid either way.)
      const setup = launch.sandboxed && !spoke && st?.code === SANDBOX_SETUP_EXIT ? SANDBOX_SAYS.exec(proc.stderrTail())?.[0] : undefined
      if (setup) return ['spawn', `the agent's sandbox could not be set up (exit ${SANDBOX_SETUP_EXIT}): ${setup}`]
      if (st?.signal) return ['crash', `killed by signal ${st.signal} before a final answer`]
      if (st && st.code !== 0 && st.code !== null) return ['crash', `exited with code ${st.code} before a final answer`]
      if (st) return ['eof', 'exited with code 0 without a final answer']
      return ['eof', 'closed stdout without a final answer']
    }

    const started = Date.now()
    const episodeEnd = started + limits.timeoutMs
    let stepEnd = started + limits.stepTimeoutMs
    let drainEnd = Infinity
    let said = 0
    // whether the agent wrote a line: the program ran
    let spoke = false
    const seen = new Set<string>()
    let steps = 0
    proc.send(startMessage(input, ctx.seed, ctx.maxSteps))

    while (true) {
      // checked before the queue, so an agent that floods stdout cannot outrun either
      if (ctx.signal?.aborted) return fail('aborted', 'cancelled by the runner')
      if (Date.now() >= episodeEnd) return fail('timeout', `no final answer within ${limits.timeoutMs} ms`)
      // which deadline we wait for decides the reason (timers may fire a hair early)
      const until = Math.min(episodeEnd, stepEnd, drainEnd)
      const ev = await proc.next(until - Date.now())
      switch (ev.kind) {
        case 'timeout':
          if (until === drainEnd) return fail(...exitDetail())
          if (until === episodeEnd) return fail('timeout', `no final answer within ${limits.timeoutMs} ms`)
          return fail('step_timeout', `agent silent for ${limits.stepTimeoutMs} ms`)
        case 'abort':
          return fail('aborted', 'cancelled by the runner')
        case 'spawn_error':
          return fail('spawn', `cannot start ${JSON.stringify(launch.program)}: ${ev.message}`)
        case 'overflow':
          return fail('protocol', `stdout line longer than ${limits.maxLineBytes} bytes`)
        case 'exit':
          // stdout may still hold the last lines (the final answer): read them first
          drainEnd = Math.min(drainEnd, Date.now() + limits.drainMs)
          break
        case 'eof':
          await proc.waitExit(limits.drainMs)
          return fail(...exitDetail())
        case 'line': {
          spoke = true
          const parsed = parseAgentLine(ev.line)
          if (!parsed.ok) return fail('protocol', parsed.problem)
          const msg = parsed.message
          if (msg.type === 'final' || msg.type === 'tool_call') {
            said += Buffer.byteLength(msg.type === 'final' ? msg.answer : JSON.stringify(msg.arguments))
            if (said > limits.maxSaidBytes) return fail('protocol', `the agent's ${msg.type === 'final' ? 'answer brings' : 'tool calls bring'} what it said in this episode to ${said} bytes, over the ${limits.maxSaidBytes} an episode records`)
          }
          if (msg.type === 'final') {
            messages.push({role: 'assistant', content: msg.answer})
            answered = true
            return {finalAnswer: msg.answer, messages, usage}
          }
          if (msg.type === 'error') return fail('agent_error', preview(msg.message, 500))
          if (msg.type === 'usage') {
            usage.tokensIn += msg.tokens_in
            usage.tokensOut += msg.tokens_out
          } else {
            if (seen.has(msg.id)) return fail('protocol', `tool_call id ${JSON.stringify(msg.id)} used twice`)
            seen.add(msg.id)
            if (++steps > ctx.maxSteps) return fail('max_steps', `more than ${ctx.maxSteps} tool calls`)
            const problem = await callTool(msg, tools, proc, messages)
            if (problem) return fail('tool_error', problem)
          }
          stepEnd = Date.now() + limits.stepTimeoutMs
          break
        }
      }
    }
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort)
    await proc.close(answered ? limits.politeExitMs : 0, limits.killGraceMs)
  }
}

/** Runs one call through the runner's invoker and answers the agent; returns a problem if the invoker itself threw. */
async function callTool(msg: ToolCallMessage, tools: ToolInvoker, proc: AgentProcess, messages: Message[]): Promise<string | undefined> {
  messages.push({role: 'assistant', content: '', tool_calls: [{id: msg.id, type: 'function', function: {name: msg.tool, arguments: JSON.stringify(msg.arguments)}}]})
  try {
    const result = await tools({tool: msg.tool, arguments: msg.arguments, callId: msg.id})
    // serializing is inside the try too: a result JSON cannot carry (a bigint, a cycle) is our bug
    messages.push({role: 'tool', tool_call_id: msg.id, content: toolResultContent(result)})
    proc.send(toolResultMessage(msg.id, result))
  } catch (e) {
    return `tool invoker failed on ${msg.tool}: ${e instanceof Error ? e.message : String(e)}`
  }
}
