import {AgentSpecError, UnknownAgentError} from '../../errors/agent.js'
import type {SandboxOptions} from '../../agents/command/sandbox.js'
import type {LlmClientOptions} from '../../agents/openai/options.js'
import {createCommandResearchAgent} from './command.js'
import {createOpenAIResearchAgent} from './openai.js'
import {createSearchAgent} from './search.js'
import type {ResearchAgent} from './types.js'

export const RESEARCH_AGENTS = ['search', 'command:PROGRAM [ARGS]', 'openai:MODEL'] as const

/** `--agent` of `exp research`: search (built in, offline), command:…, openai:MODEL. */
export function createResearchAgent(spec: string, o: {sandbox?: Omit<SandboxOptions, 'env'>; openai?: LlmClientOptions} = {}): ResearchAgent {
  const colon = spec.indexOf(':')
  const name = colon < 0 ? spec : spec.slice(0, colon)
  const arg = colon < 0 ? '' : spec.slice(colon + 1)
  if (name === 'search') {
    if (arg) throw new AgentSpecError(spec, 'the search agent takes no argument', 'write just: search')
    return createSearchAgent()
  }
  if (name === 'command') return createCommandResearchAgent(arg, o.sandbox ? {sandbox: o.sandbox} : {})
  if (name === 'openai') {
    if (!arg.trim()) throw new AgentSpecError('openai:', 'no model given', 'name the model, e.g. openai:gpt-4o-mini')
    return createOpenAIResearchAgent(arg, o.openai ?? {})
  }
  throw new UnknownAgentError(spec, [...RESEARCH_AGENTS])
}
