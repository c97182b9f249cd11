import type {FactsByKind} from '../records/index.js'
import type {ScoreVector} from '../records/types.js'
import type {ResearchIndex, Linked, HypothesisNode} from './research.js'

export type Judgement = 'invalid' | 'supports' | 'contradicts' | 'inconclusive'

/** Every episode crashed or timed out: the batch failed to run rather than failed its tasks, so it has no trustworthy score. */
export function isInvalid(f: FactsByKind['evaluation']): boolean {
  return f.invalid > 0 && f.passed + f.failed === 0
}

export function isCandidate(f: FactsByKind['evaluation']): boolean {
  return f.role === 'candidate' || f.role === 'gate-head'
}

function isBaseline(f: FactsByKind['evaluation']): boolean {
  return f.role === 'baseline' || f.role === 'gate-base'
}

/**
 * How a candidate evaluation bears on a hypothesis' expected effect. The effect is the
 * comparison's diff for success_rate (or the candidate's rate against the latest baseline
 * of the same proposal and split when there is no comparison), the score-vector delta for
 * any other metric. Regressions contradict whatever the diff says; no effect beyond the
 * margin in the expected direction contradicts a falsifiable "raises" or "lowers".
 */
export function judge(ix: ResearchIndex, node: HypothesisNode, ev: Linked<'evaluation'>): Judgement {
  const hyp = node.self.facts
  const f = ev.facts
  if (isInvalid(f)) return 'invalid'
  if ((f.regressions ?? 0) > 0) return 'contradicts'
  const delta = effectOf(ix, node, ev, hyp.metric)
  if (delta === undefined) return 'inconclusive'
  const margin = hyp.margin ?? 0
  const ok = hyp.direction === 'increase' ? delta > margin : delta < -margin
  return ok ? 'supports' : 'contradicts'
}

function effectOf(ix: ResearchIndex, node: HypothesisNode, ev: Linked<'evaluation'>, metric: string): number | undefined {
  const f = ev.facts
  if (metric === 'success_rate' || metric === 'success') {
    if (f.diff !== undefined) return f.diff
    const base = baselineOf(node, ev)
    return base && f.success_rate - base.facts.success_rate
  }
  if (f.diff === undefined) return undefined
  // a score-vector metric: rare, so its body is loaded only here
  const c = ix.ledger.load<'evaluation'>(ev.entry).body.comparison
  const k = metric as keyof ScoreVector
  if (!c || typeof c.scores_candidate[k] !== 'number') return undefined
  return c.scores_candidate[k] - c.scores_baseline[k]
}

/** The latest valid baseline evaluation of the same proposal and split recorded before `ev`. */
function baselineOf(node: HypothesisNode, ev: Linked<'evaluation'>): Linked<'evaluation'> | undefined {
  let best: Linked<'evaluation'> | undefined
  for (const b of node.events) {
    if (b.pos >= ev.pos) break
    if (b.entry.kind !== 'evaluation') continue
    const f = b.facts as FactsByKind['evaluation']
    if (isBaseline(f) && !isInvalid(f) && f.proposal === ev.facts.proposal && f.split === ev.facts.split) best = b as Linked<'evaluation'>
  }
  return best
}
