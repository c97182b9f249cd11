import type {ChatFn} from '../agents/openai/chat.js'
import {UNSAFE_TEXT} from '../records/summary.js'
import {parseRule, renderRule, ruleKey, toolsOf} from '../knowledge/index.js'
import {renderPatch, type SkillPatch} from '../skills/index.js'
import type {KnowledgeItem} from './knowledge.js'
import type {ProposedPatch} from './proposer.js'

/**
 * LLM drafting of a proposal (docs/loop.md, "LLM drafting"): for each line the deterministic
 * proposer chose, a model drafts the line and the reason a reviewer reads, from the evidence
 * the knowledge cites. What is decided stays deterministic: which knowledge, which rules,
 * which section, how many lines (the patch's scope). A drafted line is kept only when it
 * reads back as exactly the rule the knowledge holds (the agent follows only that); a drafted
 * reason only when it is one short sentence that names the rule's tools. Every exchange is
 * returned, redacted, to be recorded next to the proposal.
 */
export interface Exchange {
  knowledge: string
  prompt: string
  response: string
  line_accepted: boolean
  reason_accepted: boolean
}

export interface DraftedPatch {
  proposed: ProposedPatch
  exchanges: Exchange[]
}

export const PROPOSE_SYSTEM = [
  'You write one line of the procedure of an IT operations agent skill, from mined evidence.',
  'Answer with exactly two lines. Line 1: the procedure line, which must say exactly what the given rule says, in the same words (tool names and error codes in backticks). Line 2: "Why: " and one sentence, for a reviewer, on the evidence.',
].join('\n')

function prompt(k: KnowledgeItem): string {
  const b = k.record.body
  return [
    `Rule: ${renderRule(k.rule!)}`,
    `Claim: ${b.claim.text}`,
    `Evidence: ${b.statistics.support} supporting run(s), ${b.statistics.failures} counterexample(s), ${b.unexplained?.length ?? 0} unexplained; confidence ${b.confidence}.`,
    `When: ${b.conditions.join('; ')}`,
  ].join('\n')
}

/** a character a reason must not hold: control (NUL, an escape), bidirectional, a line separator */
const UNSAFE = new RegExp(`[${UNSAFE_TEXT}\\u2028\\u2029]`)

export async function draftPatch(p: ProposedPatch, items: ReadonlyMap<string, KnowledgeItem>, chat: ChatFn, o: {text: string; path?: string; redact?: (s: string) => string}): Promise<DraftedPatch> {
  const redact = o.redact ?? ((s: string) => s)
  const exchanges: Exchange[] = []
  const edits: SkillPatch['edits'] = []
  for (const e of p.patch.edits) {
    const id = e.knowledge[0] ?? ''
    const k = items.get(id)
    if (!k?.rule || !('lines' in e)) {
      edits.push(e)
      continue
    }
    const ask = prompt(k)
    const reply = await chat([{role: 'system', content: PROPOSE_SYSTEM}, {role: 'user', content: ask}])
    const [first = '', ...rest] = reply.text.trim().split(/\r?\n/).filter(l => l.trim())
    const drafted = parseRule(first)
    const lineOk = !!drafted && ruleKey(drafted) === ruleKey(k.rule)
    const why = rest.join(' ').replace(/^why:\s*/i, '').trim()
    const names = toolsOf(k.rule).map(t => `\`${t}\``)
    // (a reason is a line of the proposal's and the merge's commit messages, and of every view: no NUL, escape or bidirectional character)
    const reasonOk = !!why && why.length <= 300 && names.some(n => why.includes(n)) && !UNSAFE.test(why)
    exchanges.push({knowledge: id, prompt: redact(ask), response: redact(reply.text), line_accepted: lineOk, reason_accepted: reasonOk})
    // the line written is the rule's canonical one either way: a drafted line is accepted only when it says exactly that
    edits.push({...e, lines: [renderRule(k.rule)], ...(reasonOk ? {reason: redact(why)} : {})} as typeof e)
  }
  const patch: SkillPatch = {...p.patch, edits}
  const rendered = renderPatch(o.text, patch, {path: o.path})
  const reason = edits.map(e => e.reason).filter(Boolean).join(' ')
  return {proposed: {...p, patch, rendered, reason: reason || p.reason}, exchanges}
}
