import {ExpError} from './base.js'
import {clipped} from './shown.js'

/** `--agent SPEC` names no adapter we know. Exit 2: it is a usage mistake. */
export class UnknownAgentError extends ExpError {
  constructor(spec: string, available: readonly string[]) {
    super('E_UNKNOWN_AGENT', `unknown agent: ${JSON.stringify(clipped(spec))} (available: ${available.join(', ')})`, {
      data: {spec, available},
      hint: `use one of: ${available.join(', ')}`,
      exit: 2,
    })
  }
}

/** An agent spec names a known adapter but cannot be used as written (empty command, unterminated quote, no model). */
export class AgentSpecError extends ExpError {
  constructor(spec: string, why: string, hint: string) {
    super('E_AGENT_SPEC', `invalid agent ${JSON.stringify(spec)}: ${why}`, {data: {spec}, hint, exit: 2})
  }
}

/**
 * An LLM call failed after the client's retries, or answered with a body we cannot use.
 * Episodes turn this into an `invalid` outcome; the chat() helper lets it propagate.
 * The message is always redacted: it never carries the API key.
 */
export class LlmError extends ExpError {
  constructor(kind: 'http' | 'timeout' | 'connection' | 'malformed_response' | 'aborted', message: string, data: Record<string, unknown> = {}) {
    super('E_LLM', message, {
      data: {kind, ...data},
      hint: 'check OPENAI_BASE_URL, the model name and the server logs; transient errors are retried by the client (maxRetries)',
      exit: 1,
    })
  }
}

/** An adapter that is loaded on demand could not be loaded (a broken install or build). */
export class AgentUnavailableError extends ExpError {
  constructor(name: string, detail: string) {
    super('E_AGENT_UNAVAILABLE', `agent ${name} cannot be loaded: ${detail}`, {data: {name}, hint: 'rebuild exp (npm run build) or reinstall it', exit: 1})
  }
}

/**
 * Not one episode of a run could run: the agent program is missing, its endpoint refused or
 * kept failing, or every episode timed out. The episodes are recorded as invalid (what
 * happened), no evaluation is; running the same command again retries them.
 */
export class AgentInfrastructureError extends ExpError {
  constructor(agent: string, episodes: number, reasons: readonly {reason: string; count: number}[]) {
    super('E_AGENT_INFRA', `no episode could run: all ${episodes} failed for infrastructure reasons, not the agent's (${agent}): ${reasons.slice(0, 3).map(r => `${r.reason}${r.count > 1 ? ` (${r.count}x)` : ''}`).join('; ')}`, {
      data: {agent, episodes, reasons},
      hint: 'fix the agent command, the endpoint (OPENAI_BASE_URL, the server) or the timeouts, then run the same command again: it retries these episodes (--no-retry-invalid keeps them)',
    })
  }
}

/**
 * Every episode of a run the command cannot go on without (`exp evolve`'s training) was
 * invalid: the agent crashed, broke the protocol or gave up in each, so there is nothing to
 * learn from. The episodes are recorded as they ended (the agent's own doing: not retried).
 */
export class AgentInvalidError extends ExpError {
  constructor(agent: string, what: string, episodes: number, reasons: readonly {reason: string; count: number}[]) {
    super('E_AGENT_INVALID', `every ${what} episode (${episodes}) was invalid: the agent (${agent}) ended none of them with an answer: ${reasons.slice(0, 3).map(r => `${r.reason}${r.count > 1 ? ` (${r.count}x)` : ''}`).join('; ')}`, {
      data: {agent, episodes, reasons},
      hint: 'check the agent (--agent), e.g. run its command by hand; `exp inspect` of a trace id shows one episode whole',
    })
  }
}
