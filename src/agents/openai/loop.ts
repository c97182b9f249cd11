import {LlmError} from '../../errors/agent.js'
import {invalidOutcome, type InvalidCode} from '../invalid.js'
import {jsonTooDeep, MAX_NESTING} from '../nesting.js'
import {systemPrompt, toolResultContent} from '../transcript.js'
import type {AgentContext, AgentInput, AgentOutcome, Message, ToolInvoker, Usage} from '../types.js'
import type {Completer, WireMessage, WireTool} from './completer.js'

export interface LoopSettings {
  model: string
  /** read the cache on repeated trials too (default: only repetition 0 uses it) */
  cacheRepetitions: boolean
  /** send ctx.seed as the `seed` request parameter */
  sendSeed: boolean
  /** the whole episode, requests, retries and tool time included, in ms (a command agent's timeoutMs) */
  episodeTimeoutMs: number
}

/**
 * The tool-calling loop: ask, run every tool call the model makes through the runner's
 * invoker, answer with tool messages, ask again — until a reply without tool calls (the
 * final answer) or more than ctx.maxSteps tool calls. Every failure is an outcome.
 */
/** what the model may say in one episode, in characters (a command agent's maxSaidBytes) */
const MAX_SAID = 256 * 1024

export async function runLoop(completer: Completer, s: LoopSettings, input: AgentInput, tools: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome> {
  const wire: WireMessage[] = [
    {role: 'system', content: systemPrompt(input)},
    {role: 'user', content: input.task},
  ]
  const specs: WireTool[] = input.tools.map(t => ({type: 'function', function: {name: t.name, description: t.description, parameters: t.parameters}}))
  const usage: Usage = {tokensIn: 0, tokensOut: 0}
  // repeated trials sample the model again: a cached reply would just repeat trial 0
  const useCache = ctx.repetition === 0 || s.cacheRepetitions
  const params = s.sendSeed ? {seed: ctx.seed} : {}
  let allCached = true
  let steps = 0
  let said = 0
  const fail = (code: InvalidCode, detail: string) => invalidOutcome(code, detail, transcript(wire), usage)
  // one deadline for the episode: a server that answers every request slowly, each within the
  // per-request timeout, or with tool call after tool call, still ends it (as a command agent's)
  const end = Date.now() + s.episodeTimeoutMs
  const late = () => fail('timeout', `no final answer within ${s.episodeTimeoutMs} ms`)

  while (true) {
    if (ctx.signal?.aborted) return fail('aborted', 'cancelled by the runner')
    const left = end - Date.now()
    if (left <= 0) return late()
    const deadline = AbortSignal.timeout(left)
    let reply
    try {
      reply = await completer.complete({model: s.model, messages: wire, tools: specs, params}, {useCache, signal: ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline})
    } catch (e) {
      if (!(e instanceof LlmError)) throw e
      const kind = e.data.kind
      if (kind === 'aborted' && deadline.aborted && !ctx.signal?.aborted) return late()
      return fail(kind === 'aborted' || kind === 'malformed_response' || kind === 'connection' || kind === 'timeout' ? kind : 'http', e.message)
    }
    usage.tokensIn += reply.tokensIn
    usage.tokensOut += reply.tokensOut
    allCached &&= reply.cached
    if (allCached) usage.cached = true
    else delete usage.cached

    const calls = reply.toolCalls
    // what the model said in this episode, as a command agent's is counted (command/episode.ts):
    // a trace records each of it more than once, and one over the record limit stopped the run
    said += (reply.content?.length ?? 0) + calls.reduce((n, c) => n + c.arguments.length + 4 * (c.name.length + c.id.length), 0)
    if (said > MAX_SAID) return fail('malformed_response', `the model's replies bring what it said in this episode to ${said} characters, over the ${MAX_SAID} an episode records`)
    wire.push(calls.length === 0 ? {role: 'assistant', content: reply.content ?? ''} : {
      role: 'assistant',
      content: reply.content,
      tool_calls: calls.map(c => ({id: c.id, type: 'function', function: {name: c.name, arguments: c.arguments}})),
    })
    if (calls.length === 0) return {finalAnswer: reply.content ?? '', messages: transcript(wire), usage}

    for (const call of calls) {
      if (++steps > ctx.maxSteps) return fail('max_steps', `more than ${ctx.maxSteps} tool calls`)
      if (Date.now() >= end) return late()
      const args = parseArguments(call.arguments)
      let content: string
      if (args === 'deep') {
        content = toolResultContent({ok: false, error: {code: 'E_BAD_ARGUMENTS', message: `arguments are nested more than ${MAX_NESTING} levels deep`}})
      } else if (args === undefined) {
        // the model's mistake, not ours: tell it, as a tool would, and let it try again
        content = toolResultContent({ok: false, error: {code: 'E_BAD_ARGUMENTS', message: 'arguments are not a JSON object'}})
      } else {
        try {
          // serializing is inside the try: a result JSON cannot carry (a bigint, a cycle) is our bug
          content = toolResultContent(await tools({tool: call.name, arguments: args, callId: call.id}))
        } catch (e) {
          return fail('tool_error', `tool invoker failed on ${call.name}: ${e instanceof Error ? e.message : String(e)}`)
        }
      }
      wire.push({role: 'tool', tool_call_id: call.id, content})
    }
  }
}

/** The call's arguments object; 'deep' when nested deeper than MAX_NESTING (refused unparsed: a trace could not record them). */
function parseArguments(text: string): Record<string, unknown> | 'deep' | undefined {
  if (jsonTooDeep(text) !== undefined) return 'deep'
  try {
    const v: unknown = JSON.parse(text || '{}')
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** The wire conversation in the adapter-neutral Message shape (null content becomes ''). */
function transcript(wire: WireMessage[]): Message[] {
  return wire.map(m => {
    const out: Message = {role: m.role, content: m.content ?? ''}
    if (m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id
    if (m.tool_calls !== undefined) out.tool_calls = m.tool_calls.map(c => ({...c, function: {...c.function}}))
    return out
  })
}
