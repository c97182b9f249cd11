import {createChat, type ChatFn} from '../agents/openai/chat.js'
import type {LlmClientOptions} from '../agents/openai/options.js'
import {UsageError} from '../errors/index.js'
import {makeRedactor} from '../redact/index.js'
import {draftClaimTexts} from '../mining/index.js'
import {draftPatch} from './drafts.js'
import type {MineDrafter} from './mine-step.js'
import type {ProposalDrafter} from './proposal.js'

/**
 * `--proposer openai:MODEL` and `--miner-drafts openai:MODEL`: a model that drafts words (the
 * claims the miner states, the lines and reasons of a proposal) over the same client as the
 * openai agent (retries, response cache, key from the environment). What a draft may change
 * is bounded where it is used (src/mining/draft.ts, src/loop/drafts.ts); the prompts and the
 * responses are recorded with secrets and home paths redacted.
 */
export interface Drafter {
  model: string
  chat: ChatFn
  redact: (s: string) => string
}

export function drafter(spec: string, flag: string, client: LlmClientOptions = {}): Drafter {
  const m = /^openai:(.+)$/.exec(spec)
  if (!m || !m[1]!.trim()) throw new UsageError(`${flag} ${JSON.stringify(spec)}: expected openai:MODEL`, `for example ${flag} openai:gpt-4o-mini, or openai:llama3.1:8b with OPENAI_BASE_URL pointing at a local server`)
  const model = m[1]!.trim()
  const env = client.env ?? process.env
  const redact = makeRedactor({env, secrets: client.apiKey ? [client.apiKey] : []})
  return {model, chat: createChat({model, ...client}), redact}
}

export function proposalDrafter(d: Drafter): ProposalDrafter {
  return async (p, items, text) => ({...(await draftPatch(p, items, d.chat, {text, redact: d.redact})), model: d.model})
}

export function mineDrafter(d: Drafter): MineDrafter {
  return knowledge => draftClaimTexts(knowledge, d.chat, {model: d.model, redact: d.redact})
}
