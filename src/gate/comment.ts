import {gateMarkdown, type GateResult} from './gate.js'
import {COMMENT_MARKER} from './workflow.js'

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

/** The comment when the gate could not run: what went wrong and the next step. */
export function gateErrorComment(message: string, hint?: string): string {
  return [COMMENT_MARKER, '## exp gate: ERROR', '', `The gate could not run: ${message}`, '', ...(hint ? [`Next step: ${hint}`, ''] : [])].join('\n')
}
