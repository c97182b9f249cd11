/**
 * The part of a chat-completions response we rely on, checked by hand: OpenAI-compatible
 * servers (vLLM, Ollama, llama.cpp, LiteLLM) differ in the details, and a cached body is
 * plain JSON that no SDK type vouches for.
 */
export interface FunctionCall {
  id: string
  name: string
  /** the JSON text the model wrote; parsed (and possibly rejected) by the loop */
  arguments: string
}

export interface Reply {
  content: string | null
  toolCalls: FunctionCall[]
  tokensIn: number
  tokensOut: number
}

export type ParsedReply = {ok: true; reply: Reply} | {ok: false; problem: string}

export function parseCompletion(body: unknown): ParsedReply {
  if (!isObject(body)) return {ok: false, problem: `expected a JSON object, got ${typeof body === 'string' ? `text ${JSON.stringify(body.slice(0, 80))}` : typeof body}`}
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined
  if (!isObject(choice) || !isObject(choice.message)) return {ok: false, problem: 'no choices[0].message in the response'}
  const msg = choice.message
  if (msg.content !== null && msg.content !== undefined && typeof msg.content !== 'string') return {ok: false, problem: 'choices[0].message.content is neither text nor null'}
  const toolCalls: FunctionCall[] = []
  const raw = msg.tool_calls ?? []
  if (!Array.isArray(raw)) return {ok: false, problem: 'choices[0].message.tool_calls is not a list'}
  for (const [i, c] of raw.entries()) {
    const fn = isObject(c) ? c.function : undefined
    if (!isObject(fn) || typeof fn.name !== 'string') return {ok: false, problem: `tool_calls[${i}] has no function name`}
    const args = fn.arguments === undefined || fn.arguments === null ? '{}' : typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments)
    // some servers omit ids; the conversation still needs one per call to pair results
    const id = isObject(c) && typeof c.id === 'string' && c.id.length > 0 ? c.id : `call_${i}`
    toolCalls.push({id, name: fn.name, arguments: args})
  }
  const usage = isObject(body.usage) ? body.usage : {}
  return {
    ok: true,
    reply: {content: typeof msg.content === 'string' ? msg.content : null, toolCalls, tokensIn: count(usage.prompt_tokens), tokensOut: count(usage.completion_tokens)},
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0
}
