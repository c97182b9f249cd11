import type {AttemptBody, DecisionBody} from '../records/types.js'
import type {Ledger} from '../store/index.js'
import {trailersOf, type BlamedLine} from '../workspace/history.js'
import {promotionOf, type HistoryTrust, type MainCommit} from './mainline.js'

export interface ContractBlameLine {
  line: number
  text: string
  commit: string
  origin: 'initial' | 'attempt' | 'edit'
  attempt?: string
  ordinal?: number
  reason?: string
  merge?: string
  decision?: string
  unverified?: string
}

export interface ContractBlame {
  contract: string
  path: string
  lines: ContractBlameLine[]
  /** the main branch's name (main, master or any) */
  branch?: string
}

/**
 * `exp blame CONTRACT FILE` (pure): git's blame of an editable file on main, each line
 * mapped through the Exp-Attempt trailer of the commit that wrote it to its attempt, the
 * merge that promoted it and the decision behind the merge.
 */
export function contractBlame(ledger: Ledger, input: {contract: string; path: string; lines: readonly BlamedLine[]; messages: ReadonlyMap<string, string>; mainline: readonly MainCommit[]}, trust?: HistoryTrust): ContractBlame {
  const first = input.mainline.find(c => c.contracts?.includes(input.contract))?.oid
  const merges = new Map(input.mainline.flatMap(c => {
    const p = promotionOf(c)
    return p ? [[p.proposal, {commit: c.oid, standing: trust?.promotion(p)}] as const] : []
  }))
  const lines = input.lines.map((l): ContractBlameLine => {
    const base = {line: l.line, text: l.text, commit: l.commit}
    const attempt = trailersOf(input.messages.get(l.commit) ?? '')['Exp-Attempt']?.[0]
    if (!attempt) return {...base, origin: l.commit === first ? 'initial' : 'edit'}
    const e = ledger.get(attempt)
    const a = e?.kind === 'attempt' ? (ledger.load<'attempt'>(e).body as AttemptBody) : undefined
    const m = merges.get(attempt)
    const d = ledger.select({kinds: ['decision'], cites: attempt}).map(x => ({id: x.id, body: ledger.load<'decision'>(x).body as DecisionBody})).find(x => x.body.proposal === attempt && x.body.verdict === 'accept' && (!trust || trust.counts(x.id)))
    return {...base, origin: 'attempt', attempt, ...(a ? {ordinal: a.ordinal, ...(a.reason ? {reason: a.reason} : {})} : {}), ...(m ? {merge: m.commit} : {}), ...(d ? {decision: d.id} : {}), ...(m?.standing && !m.standing.ok ? {unverified: m.standing.reason ?? 'no standing accept'} : {})}
  })
  return {contract: input.contract, path: input.path, lines}
}
