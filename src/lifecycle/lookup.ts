import {NotFoundError} from '../errors/index.js'
import {byPrefix} from '../records/prefix.js'
import {researchIndex, type HypothesisNode} from '../projections/research.js'
import {derive} from '../projections/status.js'
import type {HypothesisView} from '../projections/types.js'
import type {Ledger, RecordStore} from '../store/index.js'

export interface Found {
  ledger: Ledger
  node: HypothesisNode
  view: HypothesisView
}

/** The current view of one hypothesis, or a NotFoundError naming it (exit 3). */
export async function findHypothesis(store: RecordStore, id: string, now: Date): Promise<Found> {
  const ledger = await store.ledger()
  const ix = researchIndex(ledger)
  // a unique prefix is enough, as with git revisions
  const found = byPrefix(ix.hypotheses.keys(), id, 'hypothesis')
  const node = found ? ix.hypotheses.get(found) : undefined
  if (!node) {
    const other = ledger.get(id)
    throw new NotFoundError('hypothesis', id, other ? `${id} is a ${other.kind}${other.private ? ' on a private lane' : ''}, not a public hypothesis; list hypotheses with \`exp hypotheses\`` : 'list hypotheses with `exp hypotheses`')
  }
  return {ledger, node, view: derive(ix, node, now).view}
}
