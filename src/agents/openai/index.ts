import type {Agent, AgentContext, AgentInput, AgentOutcome, ToolInvoker} from '../types.js'
import {Completer} from './completer.js'
import {runLoop} from './loop.js'
import type {LlmClientOptions} from './options.js'

export {chat, createChat, type ChatFn, type ChatMessage, type ChatReply} from './chat.js'
export {Completer, type CompletionRequest, type Completion} from './completer.js'
export type {LlmClientOptions} from './options.js'

export interface OpenAIAgentOptions extends LlmClientOptions {
  /** use the cache on repeated trials (repetition > 0) too; default false: they bypass it */
  cacheRepetitions?: boolean
  /** send the episode seed as the `seed` parameter (default true) */
  sendSeed?: boolean
  /** the whole episode in ms, every request, retry and tool call included (default 600 000, a command agent's) */
  episodeTimeoutMs?: number
}

/**
 * `openai:MODEL`: any OpenAI-compatible chat-completions endpoint with tool calling
 * (OpenAI, vLLM, Ollama, llama.cpp server, LiteLLM…). The server comes from the options
 * or OPENAI_BASE_URL / OPENAI_API_KEY; the key is never part of the agent's identity.
 */
export function createOpenAIAgent(model: string, options: OpenAIAgentOptions = {}): Agent {
  const {cacheRepetitions = false, sendSeed = true, episodeTimeoutMs = 600_000, ...client} = options
  const completer = new Completer(client)
  return {
    name: `openai:${model}`,
    model,
    params: {...(client.params ?? {})},
    run(input: AgentInput, tools: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome> {
      return runLoop(completer, {model, cacheRepetitions, sendSeed, episodeTimeoutMs}, input, tools, ctx)
    },
  }
}
