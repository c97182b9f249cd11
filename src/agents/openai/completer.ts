import type OpenAI from 'openai'
import {LlmError} from '../../errors/agent.js'
import {UsageError} from '../../errors/index.js'
import {ResponseCache} from './cache.js'
import type {LlmClientOptions} from './options.js'
import {resolveClientOptions} from './options.js'
import {redactor, type Redactor} from './redact.js'
import {parseCompletion, type Reply} from './response.js'

/** One message of the chat-completions wire format, as we send it. */
export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | null
  tool_call_id?: string
  tool_calls?: {id: string; type: 'function'; function: {name: string; arguments: string}}[]
}

export interface WireTool {
  type: 'function'
  function: {name: string; description: string; parameters: Record<string, unknown>}
}

export interface CompletionRequest {
  model: string
  messages: WireMessage[]
  tools?: WireTool[]
  /** merged over the client's own params (temperature, seed…) */
  params?: Record<string, unknown>
}

export interface Completion extends Reply {
  cached: boolean
}

/** Key-free servers still need some bearer value for the client to start. */
const NO_KEY = 'no-key'

type Sdk = typeof import('openai')
let sdk: Sdk | undefined
/** The OpenAI SDK, loaded by the first request (~150 modules: every command that can make an openai agent paid ~40 ms at start for it) */
async function loadSdk(): Promise<Sdk> {
  return (sdk ??= await import('openai'))
}
const DEFAULT_BASE = 'https://api.openai.com/v1'

/** The largest reply taken, as JSON characters (what a command agent may say in a whole episode: 256 KiB) */
export const MAX_REPLY = 256 * 1024

/** The largest response body read from the endpoint, in bytes (a reply in it, with room for whitespace and metadata) */
export const MAX_BODY = 4 * MAX_REPLY

/**
 * fetch that stops reading a response body once it is larger than `max` bytes (declared or
 * as it arrives): the client read a body whole before anything looked at its size, and a
 * hostile endpoint's 700 MB answer took exp to 1.5 GB for one episode (four at once by default).
 */
export function cappedFetch(max: number): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init)
    const declared = Number(res.headers.get('content-length'))
    const over = (n: number) => new Error(`the response body is over ${max} bytes${Number.isFinite(n) && n > max ? ` (${n})` : ''}: refused unread`)
    if (declared > max) {
      await res.body?.cancel().catch(() => undefined)
      throw over(declared)
    }
    if (!res.body) return res
    const reader = res.body.getReader()
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const {done, value} = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > max) {
        await reader.cancel().catch(() => undefined)
        throw over(NaN)
      }
      chunks.push(value)
    }
    return new Response(Buffer.concat(chunks), {status: res.status, statusText: res.statusText, headers: res.headers})
  }
}

/**
 * The one place that talks to the endpoint, shared by the agent loop and chat(): request
 * digest → cache → client (with its own retries and backoff) → shape check → cache.
 * Every failure leaves as an LlmError whose text went through the redactor.
 */
export class Completer {
  private client: OpenAI | undefined
  private readonly options: ConstructorParameters<typeof OpenAI>[0]
  private readonly cache: ResponseCache | undefined
  private readonly redact: Redactor
  private readonly params: Record<string, unknown>
  private readonly endpoint: string

  constructor(options: LlmClientOptions = {}) {
    const o = resolveClientOptions(options)
    // api.openai.com without a key answers every request 401: refused before anything runs
    // (an evolve ran its whole training and mining first, a run recorded each episode failed)
    if (o.baseURL === undefined && o.apiKey === undefined) throw new UsageError(`openai: no API key for ${DEFAULT_BASE}: OPENAI_API_KEY is not set`, 'set OPENAI_API_KEY, or OPENAI_BASE_URL to a server that needs no key (Ollama, vLLM, llama.cpp)')
    this.redact = redactor([o.apiKey])
    this.params = o.params
    this.endpoint = o.baseURL ?? DEFAULT_BASE
    this.cache = o.cacheDir ? new ResponseCache(o.cacheDir) : undefined
    // logLevel off: nothing the client could log (headers, bodies) ever reaches our output
    this.options = {baseURL: this.endpoint, apiKey: o.apiKey ?? NO_KEY, maxRetries: o.maxRetries, timeout: o.timeoutMs, logLevel: 'off', fetch: cappedFetch(MAX_BODY)}
  }

  /** The digest that names a request in the cache: endpoint, model, messages, tools, params. */
  keyOf(req: CompletionRequest): string {
    return ResponseCache.keyOf({endpoint: this.endpoint, ...this.body(req)})
  }

  async complete(req: CompletionRequest, opts: {useCache?: boolean; signal?: AbortSignal} = {}): Promise<Completion> {
    const useCache = (opts.useCache ?? true) && this.cache !== undefined
    const key = useCache ? this.keyOf(req) : ''
    if (useCache) {
      const hit = await this.cache!.get(key)
      const parsed = hit === undefined || JSON.stringify(hit).length > MAX_REPLY ? undefined : parseCompletion(hit)
      if (parsed?.ok) return {...parsed.reply, cached: true}
    }
    let raw: unknown
    try {
      const {default: Client} = await loadSdk()
      this.client ??= new Client(this.options)
      raw = await this.client.chat.completions.create(this.body(req) as never, {signal: opts.signal})
    } catch (e) {
      throw this.toLlmError(e)
    }
    // a reply larger than an episode records is refused before it is kept anywhere: one of
    // 600 KB made a trace over the record limit, which stopped the run, and from the cache
    // every rerun after it
    const text = typeof raw === 'object' && raw !== null ? JSON.stringify(raw) : undefined
    if (text !== undefined && text.length > MAX_REPLY) throw new LlmError('malformed_response', this.redact(`the response from ${this.endpoint} is ${text.length} characters, more than the ${MAX_REPLY} a reply may be`))
    // a server that echoes our headers must not get the key into a transcript or the cache
    const clean: unknown = text !== undefined ? JSON.parse(this.redact(text)) : raw
    const parsed = parseCompletion(clean)
    if (!parsed.ok) throw new LlmError('malformed_response', this.redact(`malformed response from ${this.endpoint}: ${parsed.problem}`))
    if (useCache) {
      // the cache is best-effort: a full disk costs a future request, never this answer
      await this.cache!.put(key, clean).catch(() => undefined)
    }
    return {...parsed.reply, cached: false}
  }

  private body(req: CompletionRequest): Record<string, unknown> {
    const body: Record<string, unknown> = {...this.params, ...req.params, model: req.model, messages: req.messages}
    if (req.tools && req.tools.length > 0) body.tools = req.tools
    return body
  }

  private toLlmError(e: unknown): LlmError {
    const r = this.redact
    if (!sdk) return new LlmError('connection', r(`the OpenAI client could not be loaded: ${clip(e instanceof Error ? e.message : String(e))}`))
    const {APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError} = sdk
    if (e instanceof APIUserAbortError) return new LlmError('aborted', 'request cancelled')
    if (e instanceof APIConnectionTimeoutError) return new LlmError('timeout', r(`${this.endpoint} did not answer in time, after retries`))
    if (e instanceof APIConnectionError) return new LlmError('connection', r(`cannot reach ${this.endpoint}: ${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ''}`))
    if (e instanceof APIError) return new LlmError('http', r(`HTTP ${clip(e.message)}`), {status: e.status})
    // a body the client could not parse (invalid JSON) lands here
    return new LlmError('malformed_response', r(`malformed response from ${this.endpoint}: ${clip(e instanceof Error ? e.message : String(e))}`))
  }
}

function clip(s: string, max = 500): string {
  return s.length > max ? `${s.slice(0, max)}…` : s
}
