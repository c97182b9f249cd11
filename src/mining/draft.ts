import type {ChatFn} from '../agents/openai/chat.js'
import type {RecordDraft} from '../records/index.js'
import {MINER} from './types.js'
import {UNSAFE_TEXT} from '../records/summary.js'

/**
 * Optional LLM drafting of claim texts (docs/mining.md, "LLM drafting"): the model words the
 * hypothesis a claim states, from the evidence behind it; the claim's rule, runs, statistics,
 * status and every link stay what the deterministic miner found. A reply that is empty, too
 * long, breaks a line (or holds a character a terminal would act on: a claim is one line of every
 * view, and a reply of two lines printed a forged version header in `exp provenance`), or drops
 * a backticked name of the claim is refused and the deterministic text kept.
 * Every exchange is recorded in the claim (`drafted`: prompt, response, accepted), passed
 * through `redact` first. Without this step mining is offline and byte-for-byte repeatable.
 */
export interface DraftOptions {
  /** written into `miner.model` and `drafted.model` */
  model?: string
  /** longest accepted text (default 300 characters) */
  maxChars?: number
  /** applied to the prompt and the response before they are recorded (secrets, paths) */
  redact?: (text: string) => string
}

export const DRAFT_SYSTEM = [
  'You state one mined claim about how an IT operations agent should use its tools, for a human reviewer, from the evidence given.',
  'Answer with one or two plain sentences, no preamble, no list, no quotes.',
  'Keep every name written in backticks exactly as it is. Do not add facts that the claim and its evidence do not state.',
].join('\n')

export function draftPrompt(b: RecordDraft<'knowledge'>['body']): string {
  return [
    `Claim: ${b.claim.text}`,
    `Applies: ${b.conditions.join('; ')}`,
    `Runs supporting it: ${b.statistics.support}; counterexamples: ${b.statistics.failures}, unexplained: ${b.unexplained?.length ?? b.statistics.failures}; confidence ${b.confidence}.`,
    ...(b.excluded?.length ? [`Its conditions leave out ${b.excluded.length} run(s) that refute it without them.`] : []),
  ].join('\n')
}

// a line break or a character a terminal would act on: a claim text is one line of every view
const NOT_ONE_LINE = new RegExp(`[\\r\\n${UNSAFE_TEXT}\\u2028\\u2029]`)

export async function draftClaimTexts(knowledge: readonly RecordDraft<'knowledge'>[], chat: ChatFn, options: DraftOptions = {}): Promise<RecordDraft<'knowledge'>[]> {
  const max = options.maxChars ?? 300
  const redact = options.redact ?? ((s: string) => s)
  const model = options.model ?? 'llm'
  const out: RecordDraft<'knowledge'>[] = []
  for (const k of knowledge) {
    const b = k.body
    const prompt = draftPrompt(b)
    const reply = await chat([{role: 'system', content: DRAFT_SYSTEM}, {role: 'user', content: prompt}])
    const text = reply.text.trim().replace(/^["']|["']$/g, '').trim()
    const names = b.claim.text.match(/`[^`]+`/g) ?? []
    const accepted = !!text && text.length <= max && !NOT_ONE_LINE.test(text) && names.every(n => text.includes(n))
    const drafted = {model, prompt: redact(prompt), response: redact(reply.text), accepted}
    const body = {...b, drafted, ...(accepted ? {claim: {...b.claim, text: redact(text)}, miner: {...(b.miner ?? MINER), model}} : {})}
    out.push({...k, body})
  }
  return out
}
