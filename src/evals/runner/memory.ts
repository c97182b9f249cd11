import {ExpError} from '../../errors/index.js'
import type {ManifestBody} from '../../records/types.js'
import type {SkillText} from '../../agents/types.js'

/**
 * Memory modes (docs/compare.md): whether a run's episodes become experience (`record`: the
 * miner may learn from them) and whether earlier experience reaches the agent (`recall`: the
 * recalled knowledge is handed to the agent as a second skill text).
 */
export const MEMORY_MODES = ['off', 'record_only', 'recall_only', 'closed_loop'] as const
export type MemoryMode = (typeof MEMORY_MODES)[number]

/** What `exp run` and `exp evolve` did before memory modes existed: record, never recall. */
export const DEFAULT_MEMORY_MODE: MemoryMode = 'record_only'

export function isMemoryMode(s: string): s is MemoryMode {
  return (MEMORY_MODES as readonly string[]).includes(s)
}

/** The mode named by a flag, or a usage error naming the accepted ones. */
export function parseMemoryMode(s: string | undefined, fallback: MemoryMode = DEFAULT_MEMORY_MODE): MemoryMode {
  if (s === undefined) return fallback
  if (!isMemoryMode(s)) throw new ExpError('E_USAGE', `unknown memory mode: ${JSON.stringify(s)}`, {hint: `use one of ${MEMORY_MODES.join(', ')}`, data: {flag: '--memory-mode', value: s}})
  return s
}

/** The mode keeps the run's episodes as experience (the miner reads them). */
export const records = (m: MemoryMode): boolean => m === 'record_only' || m === 'closed_loop'
/** The mode hands recalled knowledge to the agent at run time. */
export const recalls = (m: MemoryMode): boolean => m === 'recall_only' || m === 'closed_loop'

/** What a run recalled: the recall record, the knowledge in rank order and the text the agent reads. */
export interface RecallContext {
  recall: string
  knowledge: string[]
  text: string
  digest: string
}

export interface RunMemory {
  mode: MemoryMode
  /** with a recalling mode: what was recalled (nothing recalled is still pinned: an empty context) */
  context?: RecallContext
}

/** The name of the skill text the recalled knowledge is handed to the agent as. */
export const RECALL_SKILL = 'recalled-knowledge'

/**
 * The manifest's pin of the memory of a run. The default mode with nothing recalled pins
 * nothing, so manifests (and so episode ids) of runs before memory modes stay the same.
 */
export function manifestMemory(m: RunMemory | undefined): Pick<ManifestBody, 'memory'> {
  if (!m || (m.mode === DEFAULT_MEMORY_MODE && !m.context)) return {}
  return {memory: {mode: m.mode, ...(m.context ? {recall: m.context.recall, digest: m.context.digest, knowledge: m.context.knowledge} : {})}}
}

/** The skill texts an agent reads: the skill, then the recalled knowledge when there is any. */
export function skillsWithRecall(skill: SkillText, m: RunMemory | undefined): SkillText[] {
  return m?.context?.text ? [skill, {name: RECALL_SKILL, content: m.context.text}] : [skill]
}

/** A manifest's memory mode (absent: the default). */
export function manifestMode(body: Pick<ManifestBody, 'memory'>): MemoryMode {
  return (body.memory?.mode as MemoryMode | undefined) ?? DEFAULT_MEMORY_MODE
}
