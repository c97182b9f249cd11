import type {AgentOutcome, Message, Usage} from './types.js'

/**
 * Why an episode is `invalid` (an infrastructure failure, counted apart from a task
 * failure). The reason string always starts with one of these codes and a colon, so the
 * runner can tell a retryable timeout from, say, a protocol bug without a new field on
 * AgentOutcome: `invalidCode(outcome.invalid.reason)`.
 */
export const INVALID_CODES = [
  'spawn', // the program could not be started
  'timeout', // the whole episode took longer than allowed
  'step_timeout', // no message from the agent within the per-step limit
  'crash', // the process exited (code or signal) before its final answer
  'eof', // stdout closed before the final answer
  'protocol', // a line that is not JSON, an unknown type, missing or wrong fields
  'agent_error', // the agent itself reported that it cannot go on
  'max_steps', // more tool calls than ctx.maxSteps
  'tool_error', // the runner's tool invoker threw (a bug on our side, not the agent's)
  'aborted', // ctx.signal fired
  'http', // the LLM endpoint kept answering with an HTTP error (5xx, 429, ...) after retries
  'connection', // the LLM endpoint could not be reached (connection refused, DNS) after retries
  'malformed_response', // the LLM endpoint answered with a body we cannot use
  'secret', // the episode's records held a credential the redactor left, which the store refuses: recorded without what the agent said or did
] as const

export type InvalidCode = (typeof INVALID_CODES)[number]

/**
 * The codes that say the episode never got a fair run: the agent program is missing, its
 * endpoint unreachable or failing, or it ran out of time. They are infrastructure failures,
 * not the agent's: counted apart in an evaluation, said loudly by `exp run`, and retried when
 * the same run is started again (docs/agents.md). A crash, a protocol error or too many steps
 * is the agent's own doing and stays as recorded.
 */
export const INFRASTRUCTURE_CODES: readonly InvalidCode[] = ['spawn', 'connection', 'http', 'timeout', 'step_timeout', 'aborted']

/** Whether an invalid episode's reason names an infrastructure failure. */
export function isInfrastructure(reason: string | undefined): boolean {
  const code = reason === undefined ? undefined : invalidCode(reason)
  return code !== undefined && INFRASTRUCTURE_CODES.includes(code)
}

export function invalidReason(code: InvalidCode, detail: string): string {
  return `${code}: ${detail}`
}

export function invalidCode(reason: string): InvalidCode | undefined {
  const code = reason.slice(0, reason.indexOf(':'))
  return (INVALID_CODES as readonly string[]).includes(code) ? (code as InvalidCode) : undefined
}

export function invalidOutcome(code: InvalidCode, detail: string, messages: Message[], usage: Usage): AgentOutcome {
  return {finalAnswer: null, messages, usage, invalid: {reason: invalidReason(code, detail)}}
}
