import {ExpError} from '../../errors/index.js'
import {digestOf} from '../../records/index.js'
import type {MemoryMode} from '../../evals/runner/memory.js'

/**
 * The four configurations of docs/compare.md (the experimental baselines): what each
 * keeps between episodes, and whether its skill evolves.
 */
export const ARMS = ['baseline', 'trace2skill', 'memory', 'compiler'] as const
export type Arm = (typeof ARMS)[number]

export interface ArmSpec {
  arm: Arm
  /** the memory mode of every run of the arm */
  mode: MemoryMode
  /** the skill is evolved (proposals, evaluation, promotion on the arm's own main) */
  evolves: boolean
  /** how patches are drafted: from mined knowledge, or from raw failing traces */
  drafter?: 'miner' | 'raw-traces'
  persistent_traces: boolean
  structured_knowledge: boolean
  evolved_skill: boolean
}

export const ARM_SPECS: Record<Arm, ArmSpec> = {
  baseline: {arm: 'baseline', mode: 'off', evolves: false, persistent_traces: false, structured_knowledge: false, evolved_skill: false},
  trace2skill: {arm: 'trace2skill', mode: 'record_only', evolves: true, drafter: 'raw-traces', persistent_traces: true, structured_knowledge: false, evolved_skill: true},
  memory: {arm: 'memory', mode: 'closed_loop', evolves: false, persistent_traces: true, structured_knowledge: true, evolved_skill: false},
  compiler: {arm: 'compiler', mode: 'record_only', evolves: true, drafter: 'miner', persistent_traces: true, structured_knowledge: true, evolved_skill: true},
}

/** `--arms a,b,...`: known arms, each once, in the table's order; a usage error names an unknown one. */
export function parseArms(spec: string | undefined): Arm[] {
  if (spec === undefined) return [...ARMS]
  const asked = spec.split(',').map(s => s.trim()).filter(Boolean)
  if (!asked.length) throw new ExpError('E_USAGE', '--arms is empty', {hint: `name one or more of ${ARMS.join(', ')}`})
  for (const a of asked) if (!(ARMS as readonly string[]).includes(a)) throw new ExpError('E_USAGE', `unknown arm: ${JSON.stringify(a)}`, {hint: `arms are ${ARMS.join(', ')}`, data: {flag: '--arms', value: a}})
  return ARMS.filter(a => asked.includes(a))
}

/** What makes two compare runs the same run (and so resumable): every option that decides what an arm does. */
export interface CompareIdentity {
  skill: string
  agent: string
  seed: number
  budget: number
  iterations: number
  trainRepeat: number
  evalRepeat: number
  maxRules: number
  recall: {items: number; tokens: number}
  maxSteps?: number
  /** exploration of the evolving arms' training (absent: none, as before it existed) */
  explore?: number
  /** the main commit the arms start from */
  start: string
}

/** 12 hex digits of the digest of the identity: the arms' namespaces are named after it. */
export function compareId(o: CompareIdentity): string {
  return digestOf({...o, maxSteps: o.maxSteps ?? null}).slice('sha256:'.length, 'sha256:'.length + 12)
}

/** An arm's namespace: its one lane, the prefix of its proposal branches, and the name its manifests pin. */
export const armNamespace = (id: string, arm: Arm | string, prefix = 'cmp') => `${prefix}-${id}-${arm}`
/** The main branch of an arm: promotions of its evolved skill land here, never on the repository's main. */
export const armMainRef = (id: string, arm: Arm | string, prefix = 'compare') => `refs/exp/${prefix}/${id}/${arm}/main`
