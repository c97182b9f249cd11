import {jsonTooDeep, MAX_NESTING} from '../nesting.js'
import type {AgentInput, ToolResult} from '../types.js'

/**
 * The JSON Lines protocol between exp and a `command:` agent, version 1.
 * One JSON object per line, UTF-8, `\n`-terminated, on the agent's stdin and stdout.
 * docs/agent-protocol.md is the reference for agent authors; keep the two in step, and
 * bump PROTOCOL_VERSION on any change an existing agent could notice.
 */
export const PROTOCOL_VERSION = 1

// exp → agent

export interface StartMessage {
  type: 'start'
  protocol: typeof PROTOCOL_VERSION
  system: string
  skills: {name: string; content: string}[]
  task: string
  tools: {name: string; description: string; parameters: Record<string, unknown>}[]
  seed: number
  max_steps: number
}

export type ToolResultMessage =
  | {type: 'tool_result'; id: string; ok: true; result: unknown}
  | {type: 'tool_result'; id: string; ok: false; error: {code: string; message: string}}

// agent → exp

export interface ToolCallMessage {
  type: 'tool_call'
  id: string
  tool: string
  arguments: Record<string, unknown>
}

export interface UsageMessage {
  type: 'usage'
  tokens_in: number
  tokens_out: number
}

export interface FinalMessage {
  type: 'final'
  answer: string
}

/** The agent gives up for a reason of its own (its model is down, it cannot parse the tools…). */
export interface ErrorMessage {
  type: 'error'
  message: string
}

export type AgentMessage = ToolCallMessage | UsageMessage | FinalMessage | ErrorMessage

export function startMessage(input: AgentInput, seed: number, maxSteps: number): StartMessage {
  return {
    type: 'start',
    protocol: PROTOCOL_VERSION,
    system: input.system,
    skills: input.skills.map(s => ({name: s.name, content: s.content})),
    task: input.task,
    tools: input.tools.map(t => ({name: t.name, description: t.description, parameters: t.parameters})),
    seed,
    max_steps: maxSteps,
  }
}

export function toolResultMessage(id: string, r: ToolResult): ToolResultMessage {
  return r.ok ? {type: 'tool_result', id, ok: true, result: r.result ?? null} : {type: 'tool_result', id, ok: false, error: {code: r.error.code, message: r.error.message}}
}

export type Parsed = {ok: true; message: AgentMessage} | {ok: false; problem: string}

const MAX_ID = 200
/**
 * The longest tool name a call may give: a trace records the name four times (the action, the
 * message, the tool's message, an error naming it), and one 300 KB name made a trace over the
 * record limit, which stopped the whole run and every rerun. The world's names are short.
 */
export const MAX_TOOL = 128

/** Parse one stdout line. Unknown fields are ignored (forward compatible); unknown types are not. */
export function parseAgentLine(line: string): Parsed {
  const deep = jsonTooDeep(line)
  if (deep !== undefined) return {ok: false, problem: `nested more than ${MAX_NESTING} levels deep (at character ${deep}): refused unparsed, a trace could not record it`}
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch {
    return {ok: false, problem: `not JSON: ${preview(line)}`}
  }
  if (!isObject(v)) return {ok: false, problem: `not a JSON object: ${preview(line)}`}
  switch (v.type) {
    case 'tool_call': {
      if (typeof v.id !== 'string' || v.id.length === 0 || v.id.length > MAX_ID) return bad('tool_call', `"id" must be a non-empty string of at most ${MAX_ID} characters`)
      if (typeof v.tool !== 'string' || v.tool.length === 0 || v.tool.length > MAX_TOOL) return bad('tool_call', `"tool" must be a non-empty string of at most ${MAX_TOOL} characters`)
      if (!isObject(v.arguments)) return bad('tool_call', '"arguments" must be a JSON object')
      return {ok: true, message: {type: 'tool_call', id: v.id, tool: v.tool, arguments: v.arguments}}
    }
    case 'usage': {
      if (!isCount(v.tokens_in) || !isCount(v.tokens_out)) return bad('usage', '"tokens_in" and "tokens_out" must be non-negative integers')
      return {ok: true, message: {type: 'usage', tokens_in: v.tokens_in, tokens_out: v.tokens_out}}
    }
    case 'final': {
      if (typeof v.answer !== 'string') return bad('final', '"answer" must be a string')
      return {ok: true, message: {type: 'final', answer: v.answer}}
    }
    case 'error': {
      if (typeof v.message !== 'string') return bad('error', '"message" must be a string')
      return {ok: true, message: {type: 'error', message: v.message}}
    }
    default:
      return {ok: false, problem: `unknown message type ${JSON.stringify(v.type ?? null)} (expected tool_call, usage, final or error)`}
  }
}

function bad(type: string, why: string): Parsed {
  return {ok: false, problem: `${type}: ${why}`}
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
}

export function preview(s: string, max = 120): string {
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s)
}
