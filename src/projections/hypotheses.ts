import type {Ledger} from '../store/index.js'
import {researchIndex, type IndexOptions, type ResearchIndex} from './research.js'
import {derive, type Derivation} from './status.js'
import type {HypothesisStatus, HypothesisView} from './types.js'

export interface HypothesesOptions extends IndexOptions {
  status?: HypothesisStatus
}

/** Every hypothesis of the ledger with its derived status, in ledger order. */
export function hypotheses(ledger: Ledger, now: Date, opts: HypothesesOptions = {}): HypothesisView[] {
  const out: HypothesisView[] = []
  for (const d of derivations(researchIndex(ledger, opts), now)) if (!opts.status || d.view.status === opts.status) out.push(d.view)
  return out
}

/** One hypothesis' derived status and history; undefined when the id is not a (visible) hypothesis. */
export function hypothesisStatus(ledger: Ledger, id: string, now: Date, opts: IndexOptions = {}): HypothesisView | undefined {
  const ix = researchIndex(ledger, opts)
  const node = ix.hypotheses.get(id)
  return node && derive(ix, node, now).view
}

export function* derivations(ix: ResearchIndex, now: Date): Generator<Derivation> {
  for (const node of ix.hypotheses.values()) yield derive(ix, node, now)
}
