import {createChat, type ChatFn} from '../../agents/openai/chat.js'
import type {LlmClientOptions} from '../../agents/openai/options.js'
import {ResearchAgentError} from '../../errors/index.js'
import type {ResearchAgent, ResearchMove, ResearchTask} from './types.js'

const SYSTEM = [
  'You improve a project under a research contract. You may change only the files of its editable scope.',
  'You are given the contract (objective, metric and its direction), the editable files as they are now, and what earlier attempts tried and measured.',
  'Answer with one JSON object and nothing else: {"hypothesis": {"statement": "...", "mechanism": "..."}, "edits": [{"path": "...", "content": "the whole new file"}], "reason": "..."}.',
  'Answer {"none": true} when you have nothing worth trying. Never repeat an attempt that was already made.',
].join('\n')

/** `openai:MODEL` as a research agent: the model drafts the edit; exp applies, evaluates and decides. */
export function createOpenAIResearchAgent(model: string, o: LlmClientOptions & {chat?: ChatFn} = {}): ResearchAgent {
  const chat = o.chat ?? createChat({...o, model})
  const name = `openai:${model}`
  return {
    name,
    params: {model},
    async propose(task: ResearchTask): Promise<ResearchMove | null> {
      const {text} = await chat([{role: 'system', content: SYSTEM}, {role: 'user', content: JSON.stringify({contract: task.contract, files: task.files, earlier_attempts: task.evidence.map(e => ({ordinal: e.ordinal, state: e.state, dev: e.dev, holdout: e.holdout, files: e.files})), knowledge: task.knowledge, do_not_repeat: task.exclude})}])
      const m = /\{[\s\S]*\}/.exec(text)
      let doc: {none?: boolean; hypothesis?: {statement?: string; mechanism?: string}; edits?: ResearchMove['edits']; reason?: string}
      try {
        doc = JSON.parse(m ? m[0] : text) as typeof doc
      } catch {
        throw new ResearchAgentError(name, `the model did not answer JSON: ${text.slice(0, 200)}`)
      }
      if (doc.none) return null
      if (!doc.hypothesis?.statement || !Array.isArray(doc.edits)) throw new ResearchAgentError(name, 'the answer needs hypothesis.statement and edits')
      return {hypothesis: {statement: doc.hypothesis.statement, mechanism: doc.hypothesis.mechanism ?? ''}, edits: doc.edits, reason: doc.reason ?? doc.hypothesis.statement}
    },
  }
}
