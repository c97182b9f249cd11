import type {AttemptBody, DecisionBody} from '../records/types.js'
import type {Ledger} from '../store/index.js'
import {visible} from './provenance-nodes.js'
import type {BlamedLine} from '../workspace/history.js'
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
 * mapped through the commit of main's first-parent line that brought it (`via`) to the
 * promotion merge, its attempt and the decision behind the merge. A line written on a
 * merged branch is the attempt's only when a promotion merge brought it: the Exp-Attempt
 * trailer of the commit that wrote it is the attempt author's own words (a commit pushed
 * straight to main can carry one too) and names nothing here.
 */
export function contractBlame(ledger: Ledger, input: {contract: string; path: string; lines: readonly BlamedLine[]; mainline: readonly MainCommit[]}, trust?: HistoryTrust): ContractBlame {
  const first = input.mainline.find(c => c.contracts?.includes(input.contract))?.oid
  const merges = new Map(input.mainline.flatMap(c => {
    const p = promotionOf(c)
    return p ? [[c.oid, {attempt: p.proposal, standing: trust?.promotion(p)}] as const] : []
  }))
  const lines = input.lines.map((l): ContractBlameLine => {
    const base = {line: l.line, text: l.text, commit: l.commit}
    const m = merges.get(l.via)
    if (!m) return {...base, origin: l.via === first ? 'initial' : 'edit'}
    const attempt = m.attempt
    const e = visible(ledger, attempt)
    const a = e?.kind === 'attempt' ? (ledger.load<'attempt'>(e).body as AttemptBody) : undefined
    const d = ledger.select({kinds: ['decision'], cites: attempt, includePrivate: false}).map(x => ({id: x.id, body: ledger.load<'decision'>(x).body as DecisionBody})).find(x => x.body.proposal === attempt && x.body.verdict === 'accept' && (!trust || trust.counts(x.id)))
    return {...base, origin: 'attempt', attempt, ...(a ? {ordinal: a.ordinal, ...(a.reason ? {reason: a.reason} : {})} : {}), merge: l.via, ...(d ? {decision: d.id} : {}), ...(m.standing && !m.standing.ok ? {unverified: m.standing.reason ?? 'no standing accept'} : {})}
  })
  return {contract: input.contract, path: input.path, lines}
}
