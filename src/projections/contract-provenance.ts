import type {AttemptBody, DecisionBody, VerdictBody} from '../records/types.js'
import type {Ledger, LedgerEntry} from '../store/index.js'
import {ownMeasurement} from '../attempts/keys.js'
import {promotionOf, type HistoryTrust, type MainCommit} from './mainline.js'

export interface ContractVersion {
  version: number
  commit: string
  origin: 'initial' | 'promotion'
  attempt?: {id: string; ordinal: number; lane?: string; reason?: string; hypothesis?: string}
  decision?: {id: string; verdict: 'accept' | 'reject'; reasons: string[]}
  /** mean metric per split of the promoted attempt and of its baseline */
  dev?: {mean?: number; baseline?: number}
  holdout?: {mean?: number; baseline?: number}
  /** a merge with promotion trailers no standing accept decision names */
  unverified?: string
  missing: string[]
}

export interface ContractProvenance {
  contract: string
  /** the main branch's tip, its version, and the branch's name (main, master or any) */
  main: {commit: string; version: number; branch?: string}
  versions: ContractVersion[]
  /** attempts that were rejected, with why */
  rejected: {id: string; ordinal: number; lane: string; reason?: string; why: string}[]
}

function mean(vs: readonly VerdictBody[]): number | undefined {
  const ok = vs.filter(v => v.valid && v.metric)
  return ok.length ? Math.round((ok.reduce((s, v) => s + v.metric!.value, 0) / ok.length) * 1e6) / 1e6 : undefined
}

/**
 * `exp provenance CONTRACT` (pure): the versions of a research contract's editable files on
 * main — 1 at the first commit that has the contract, +1 at each promotion merge of one of
 * its attempts — each with the attempt, its verdicts' means against the baseline, and the
 * decision; merges no standing accept names are marked unverified, never hidden.
 */
export function contractProvenance(ledger: Ledger, mainline: readonly MainCommit[], contract: string, trust?: HistoryTrust): ContractProvenance {
  const attempts = new Map(ledger.select({kinds: ['attempt'], includePrivate: false}).map(e => [e.id, {e, lane: e.lane, body: ledger.load<'attempt'>(e).body as AttemptBody}]))
  // (an attempt's own lane's verdicts only: attempts/keys.ts, ownMeasurement)
  const own = (e: LedgerEntry, v: VerdictBody) => {
    const a = attempts.get(v.attempt)
    return !a || ownMeasurement(ledger, e, a.e, {contract: a.body.contract.name, ordinal: a.body.ordinal})
  }
  const verdicts = ledger.select({kinds: ['verdict'], includePrivate: false}).map(e => ({id: e.id, e, body: ledger.load<'verdict'>(e).body as VerdictBody})).filter(v => v.body.contract.name === contract && own(v.e, v.body) && (!trust || trust.counts(v.id)))
  const decisions = ledger.select({kinds: ['decision'], includePrivate: false}).map(e => ({id: e.id, body: ledger.load<'decision'>(e).body as DecisionBody})).filter(d => attempts.get(d.body.proposal)?.body.contract.name === contract && (!trust || trust.counts(d.id)))
  const of = (attempt: string, split: string) => {
    const latest = new Map<number, VerdictBody>()
    for (const v of verdicts) if (v.body.attempt === attempt && v.body.split === split) latest.set(v.body.repetition, v.body)
    const mine = [...latest.values()]
    const base = mine.map(v => v.baseline?.value).filter((x): x is number => x !== undefined)
    return {...(mean(mine) !== undefined ? {mean: mean(mine)} : {}), ...(base.length ? {baseline: Math.round((base.reduce((s, x) => s + x, 0) / base.length) * 1e6) / 1e6} : {})}
  }
  const versions: ContractVersion[] = []
  const first = mainline.find(c => c.contracts?.includes(contract))
  for (const c of mainline) {
    if (!versions.length) {
      if (c === first) versions.push({version: 1, commit: c.oid, origin: 'initial', missing: []})
      continue
    }
    const p = promotionOf(c)
    if (!p || !p.proposal.startsWith('at-')) continue
    const a = attempts.get(p.proposal)
    if (a && a.body.contract.name !== contract) continue
    if (!a && !c.subject.includes(`promote ${contract} `)) continue
    const s = trust?.promotion(p)
    const d = decisions.find(x => x.body.proposal === p.proposal && x.body.verdict === 'accept')
    versions.push({
      version: versions.length + 1,
      commit: c.oid,
      origin: 'promotion',
      ...(a ? {attempt: {id: p.proposal, ordinal: a.body.ordinal, lane: a.lane, ...(a.body.reason ? {reason: a.body.reason} : {}), ...(a.body.hypothesis ? {hypothesis: a.body.hypothesis} : {})}} : {}),
      ...(d ? {decision: {id: d.id, verdict: d.body.verdict, reasons: d.body.reasons}} : {}),
      ...(a ? {dev: of(p.proposal, 'dev'), holdout: of(p.proposal, 'holdout')} : {}),
      ...(s && !s.ok ? {unverified: s.reason ?? 'no standing accept decision names this merge'} : {}),
      missing: a ? [] : [p.proposal],
    })
  }
  const rejected = decisions.filter(d => d.body.verdict === 'reject').map(d => {
    const a = attempts.get(d.body.proposal)!
    return {id: d.body.proposal, ordinal: a.body.ordinal, lane: a.lane, ...(a.body.reason ? {reason: a.body.reason} : {}), why: d.body.reasons[0] ?? ''}
  })
  const tip = mainline[mainline.length - 1]
  return {contract, main: {commit: tip?.oid ?? '', version: versions.length}, versions, rejected}
}
