import {gateMarkdown, type GateResult} from './gate.js'
import {COMMENT_MARKER} from './workflow.js'
import {UNSAFE_TEXT, uEscape} from '../records/index.js'

/**
 * The pull-request comment (`exp gate --comment FILE`): the gate's Markdown under a marker
 * line, which the workflow finds to update its one comment instead of adding another.
 */
export function gateComment(r: GateResult, o: {approvedBy?: string} = {}): string {
  const out = [COMMENT_MARKER, gateMarkdown(r).trimEnd(), '']
  if (o.approvedBy) out.push(`Approved by @${o.approvedBy}: a candidate that is not worse may pass when the policy sets \`success.allow_neutral\`.`, '')
  out.push(`<sub>Reproduce locally: \`exp gate --base ${r.base.slice(0, 12)} --head ${r.head.slice(0, 12)}\`. Updated on every run of the workflow.</sub>`, '')
  return out.join('\n')
}

/**
 * The comment when the gate could not run: what went wrong and the next step, as the command
 * printed them, in a code block. The message can hold what the pull request chose (a file
 * name: \`skills/@someone [click](https://…)/SKILL.md\`): as Markdown it pinged the user it
 * named and showed a link under the bot's name; a code block renders none of it, and
 * control characters are shown escaped, as the terminal shows them.
 */
export function gateErrorComment(message: string, hint?: string): string {
  const text = [`error: ${message}`, ...(hint ? [`hint: ${hint}`] : [])].join('\n').replace(UNSAFE, uEscape)
  // a fence longer than any run of backticks in the text (CommonMark)
  const fence = '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map(r => r.length + 1)))
  return [COMMENT_MARKER, '## exp gate: ERROR', '', 'The gate could not run:', '', `${fence}text`, text, fence, ''].join('\n')
}

const UNSAFE = new RegExp(`[\\u2028\\u2029${UNSAFE_TEXT}]`, 'g')
