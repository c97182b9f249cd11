import {NotFoundError} from '../errors/index.js'
import {byPrefix} from '../records/prefix.js'
import {encodeFacts, type ExpRecord} from '../records/index.js'
import {researchIndex, type HypothesisNode} from '../projections/research.js'
import {derive} from '../projections/status.js'
import type {HypothesisView} from '../projections/types.js'
import {Ledger, laneRef, type RecordStore} from '../store/index.js'

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

/**
 * The view of a hypothesis once `record` is in the ledger, where the ledger orders it (by its
 * Lamport clock): what a record about to be written would change (AppendOptions.beforeWrite),
 * read before anything is. Pure: `ledger` is left as it is.
 */
export function viewWith(ledger: Ledger, record: ExpRecord, hypothesis: string, now: Date): HypothesisView | undefined {
  const facts = encodeFacts(record)
  const entry = {id: record.id, kind: record.kind, digest: record.digest, lane: record.lane, ref: laneRef(record.lane), private: false, lamport: record.lamport, commit: '', cites: record.cites, ...(facts ? {facts} : {})}
  const next = Ledger.extend(ledger, [entry], [])
  if (!next) return undefined
  const ix = researchIndex(next)
  const node = ix.hypotheses.get(hypothesis)
  return node && derive(ix, node, now).view
}
