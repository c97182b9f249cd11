import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

/**
 * A real HTTP server on 127.0.0.1 that speaks just enough of POST /v1/chat/completions.
 * Each request gets the next scripted reply; every request is kept for assertions.
 */
export interface FakeReply {
  status?: number
  headers?: Record<string, string>
  /** an object is sent as JSON; a string is sent as is (to send broken JSON) */
  body: unknown
  delayMs?: number
}

export interface SeenRequest {
  url: string
  headers: IncomingMessage['headers']
  body: any
}

export interface FakeLlm {
  baseURL: string
  requests: SeenRequest[]
  close(): Promise<void>
}

export type Script = (req: SeenRequest, index: number) => FakeReply

export async function startFakeLlm(script: Script): Promise<FakeLlm> {
  const requests: SeenRequest[] = []
  const server: Server = createServer(async (req, res) => {
    let text = ''
    for await (const chunk of req) text += chunk
    const seen: SeenRequest = {url: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined}
    requests.push(seen)
    const reply = script(seen, requests.length - 1)
    if (reply.delayMs) await new Promise(r => setTimeout(r, reply.delayMs))
    if (res.destroyed) return
    res.writeHead(reply.status ?? 200, {'content-type': 'application/json', ...reply.headers})
    res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise(resolve => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

/** A chat completion body: a final text, or tool calls. */
export function completion(message: {content?: string | null; tool_calls?: {id: string; name: string; arguments: string}[]}, usage = {prompt_tokens: 10, completion_tokens: 5}): unknown {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'test-model',
    choices: [{
      index: 0,
      finish_reason: message.tool_calls ? 'tool_calls' : 'stop',
      message: {
        role: 'assistant',
        content: message.content ?? null,
        ...(message.tool_calls ? {tool_calls: message.tool_calls.map(c => ({id: c.id, type: 'function', function: {name: c.name, arguments: c.arguments}}))} : {}),
      },
    }],
    usage: {...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens},
  }
}

/** Tells the client to retry at once instead of its default half-second backoff. */
export const RETRY_NOW = {'retry-after-ms': '1'}
