import type {ChatFn} from '../agents/openai/chat.js'
import type {RecordDraft} from '../records/index.js'
import {MINER} from './types.js'

/**
 * Optional LLM drafting of claim texts (DESIGN.md §5: the LLM may draft text; evidence links
 * stay deterministic). Only `claim.text` may change: the rule, the runs, the statistics and
 * every link are copied as they are, and `miner.model` records who wrote the words. A reply
 * that is empty, too long, or drops a backticked name of the claim is refused and the
 * deterministic text kept. Without this step mining is offline and byte-for-byte repeatable.
 */
export interface DraftOptions {
  /** written into `miner.model` of the redrafted claims */
  model?: string
  /** longest accepted text (default 300 characters) */
  maxChars?: number
}

const SYSTEM = [
  'You rewrite one mined claim about how an IT operations agent should use its tools, for a human reviewer.',
  'Answer with one or two plain sentences, no preamble, no list, no quotes.',
  'Keep every name written in backticks exactly as it is. Do not add facts that the claim and its statistics do not state.',
].join('\n')

export async function draftClaimTexts(knowledge: readonly RecordDraft<'knowledge'>[], chat: ChatFn, options: DraftOptions = {}): Promise<RecordDraft<'knowledge'>[]> {
  const max = options.maxChars ?? 300
  const out: RecordDraft<'knowledge'>[] = []
  for (const k of knowledge) {
    const b = k.body
    const prompt = [`Claim: ${b.claim.text}`, `Applies: ${b.conditions.join('; ')}`, `Runs supporting it: ${b.statistics.support}; counterexamples: ${b.statistics.failures}; confidence ${b.confidence}.`].join('\n')
    const reply = await chat([{role: 'system', content: SYSTEM}, {role: 'user', content: prompt}])
    const text = reply.text.trim().replace(/^["']|["']$/g, '').trim()
    const names = b.claim.text.match(/`[^`]+`/g) ?? []
    if (!text || text.length > max || names.some(n => !text.includes(n))) {
      out.push(k)
      continue
    }
    const body = {...b, claim: {...b.claim, text}, ...(options.model ? {miner: {...(b.miner ?? MINER), model: options.model}} : {})}
    out.push({...k, body})
  }
  return out
}
