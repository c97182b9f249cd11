import type {Message, ToolError} from '../types.js'

/**
 * A tool message whose JSON text is written the first time it is read. Writing every
 * result eagerly was the largest cost of an episode, and success-rate sweeps never read
 * it. The getter is an own enumerable property, so JSON.stringify, structuredClone,
 * spreading and canonical digests all see `content` as a plain string.
 */
export function toolMessage(callId: string, res: {ok: boolean; result?: unknown; error?: ToolError}): Message {
  let text: string | undefined
  return {
    role: 'tool',
    tool_call_id: callId,
    get content(): string {
      return (text ??= JSON.stringify(res.ok ? res.result : {error: res.error}))
    },
  }
}

/** Simulated size of a result, for the token count: a fixed part plus a share per listed item. */
export function resultChars(res: {ok: boolean; result?: unknown}): number {
  if (!res.ok || res.result === null || typeof res.result !== 'object') return 120
  let n = 240
  for (const k in res.result) {
    const v = (res.result as Record<string, unknown>)[k]
    if (Array.isArray(v)) n += 120 * v.length
  }
  return n
}
