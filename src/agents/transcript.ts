import type {AgentInput, Message, ToolResult} from './types.js'

/**
 * The opening of every transcript, whatever the adapter: one system message (the
 * instructions, then each active skill under its name) and one user message (the task).
 * Keeping one shape lets traces from different adapters be compared and mined alike.
 */
export function systemPrompt(input: AgentInput): string {
  const parts = [input.system.trimEnd()]
  for (const s of input.skills) parts.push(`# Skill: ${s.name}\n\n${s.content.trimEnd()}`)
  return parts.filter(p => p.length > 0).join('\n\n')
}

export function openingMessages(input: AgentInput): Message[] {
  return [
    {role: 'system', content: systemPrompt(input)},
    {role: 'user', content: input.task},
  ]
}

/** A tool result as the model (or the transcript) sees it: the JSON the agent received. */
export function toolResultContent(result: ToolResult): string {
  return JSON.stringify(result.ok ? {ok: true, result: result.result} : {ok: false, error: result.error})
}
