import type {Usage} from '../types.js'
import {Completer} from './completer.js'
import type {LlmClientOptions} from './options.js'

/**
 * Plain text chat over the same seam as the agent (same client, retries, cache, key
 * handling), for the LLM miner and proposer: messages in, text out. They depend on the
 * ChatFn type only, so a deterministic stand-in is any function of that type.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export interface ChatReply {
  text: string
  usage: Usage
}

export type ChatFn = (messages: readonly ChatMessage[], opts?: {useCache?: boolean; signal?: AbortSignal}) => Promise<ChatReply>

export interface ChatOptions extends LlmClientOptions {
  model: string
}

/** A reusable chat function bound to one model and one client. Failures throw LlmError (E_LLM). */
export function createChat(options: ChatOptions): ChatFn {
  const {model, ...client} = options
  const completer = new Completer(client)
  return async (messages, opts = {}) => {
    const r = await completer.complete({model, messages: messages.map(m => ({role: m.role, content: m.content}))}, opts)
    const usage: Usage = {tokensIn: r.tokensIn, tokensOut: r.tokensOut}
    if (r.cached) usage.cached = true
    return {text: r.content ?? '', usage}
  }
}

/** One-shot convenience over createChat. */
export function chat(messages: readonly ChatMessage[], options: ChatOptions & {useCache?: boolean; signal?: AbortSignal}): Promise<ChatReply> {
  const {useCache, signal, ...rest} = options
  return createChat(rest)(messages, {useCache, signal})
}
