/**
 * How to reach an OpenAI-compatible chat-completions endpoint. Everything is optional:
 * the environment fills the gaps the way the official client does.
 */
export interface LlmClientOptions {
  /** default: `OPENAI_BASE_URL`, then https://api.openai.com/v1 */
  baseURL?: string
  /** default: `OPENAI_API_KEY`; servers without auth (Ollama, vLLM, llama.cpp) need none */
  apiKey?: string
  /** retries of the client on 408/409/429/5xx and connection errors/timeouts (default 3) */
  maxRetries?: number
  /** per-request timeout in ms, before the client retries (default 120 000) */
  timeoutMs?: number
  /** response cache folder, e.g. `.git/exp/llm-cache/`; absent = no cache */
  cacheDir?: string
  /** sampling and other request parameters (temperature, top_p, max_tokens…), sent as is */
  params?: Record<string, unknown>
  /** where the defaults are read from (default: process.env); tests pass their own */
  env?: Record<string, string | undefined>
}

export interface ResolvedClientOptions {
  baseURL: string | undefined
  apiKey: string | undefined
  maxRetries: number
  timeoutMs: number
  cacheDir: string | undefined
  params: Record<string, unknown>
}

export function resolveClientOptions(o: LlmClientOptions): ResolvedClientOptions {
  const env = o.env ?? process.env
  return {
    baseURL: o.baseURL ?? nonEmpty(env.OPENAI_BASE_URL),
    apiKey: o.apiKey ?? nonEmpty(env.OPENAI_API_KEY),
    maxRetries: o.maxRetries ?? 3,
    timeoutMs: o.timeoutMs ?? 120_000,
    cacheDir: o.cacheDir,
    params: o.params ?? {},
  }
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s.trim() === '' ? undefined : s
}
