/**
 * The one executor interface (docs/agents.md). The runner gives an agent only: the system
 * instructions, the active skills, the task, and the tool interface. Never scenario ids,
 * invariants, expected states, knowledge or recall.
 */

/** A tool as any LLM sees it: name, description, JSON Schema of its arguments. */
export interface ToolSpec {
  name: string
  description: string
  parameters: Record<string, unknown>
  /**
   * JSON Schema of a successful result, when the tool declares one (MCP's outputSchema):
   * which fields a record has, and which of them must be set.
   */
  returns?: Record<string, unknown>
}

export interface ToolError {
  code: string
  message: string
}

/** What a tool call returns: a structured result, or a structured error. */
export type ToolResult = {ok: true; result: unknown} | {ok: false; error: ToolError}

export interface ToolCall {
  tool: string
  arguments: Record<string, unknown>
  /** the agent's own id for the call (OpenAI tool_call_id), when it has one */
  callId?: string
}

/** The runner's side of the tool interface: executes and records every call. */
export type ToolInvoker = (call: ToolCall) => Promise<ToolResult>

export interface SkillText {
  name: string
  /** the SKILL.md text as deployed (frontmatter included) */
  content: string
}

export interface AgentInput {
  system: string
  skills: readonly SkillText[]
  task: string
  tools: readonly ToolSpec[]
}

export interface AgentContext {
  /** deterministic seed of this episode (scenario-independent derivation is the runner's job) */
  seed: number
  /** repetition index, for adapters that must bypass caches on repeated trials */
  repetition: number
  /** hard limit of tool calls; the runner stops the episode past it */
  maxSteps: number
  signal?: AbortSignal
}

export interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string
  tool_call_id?: string
  tool_calls?: Record<string, unknown>[]
}

export interface Usage {
  tokensIn: number
  tokensOut: number
  cached?: boolean
}

/**
 * How an episode ended from the agent's side. `invalid` is an infrastructure failure
 * (crash, timeout, malformed protocol, HTTP error after retries), counted apart from the
 * agent simply failing the task.
 */
export interface AgentOutcome {
  finalAnswer: string | null
  messages: Message[]
  usage: Usage
  invalid?: {reason: string}
}

export interface Agent {
  /** e.g. `scripted`, `command:./my-agent.py`, `openai:gpt-4o-mini` */
  readonly name: string
  readonly model?: string
  readonly params?: Record<string, unknown>
  run(input: AgentInput, tools: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome>
  close?(): Promise<void>
}
