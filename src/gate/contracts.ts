import {randomBytes} from 'node:crypto'
import path from 'node:path'
import type {RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import type {Contract} from '../contracts/types.js'
import {matchesAny} from './glob.js'
import {attemptId} from '../attempts/keys.js'
import {evaluateAttempt, type EvaluateOptions} from '../attempts/evaluate.js'
import {attemptChecks} from '../attempts/promote.js'
import type {SplitSummary} from '../attempts/summary.js'
import type {Check} from '../loop/policy.js'

export interface GateContract {
  contract: string
  changed: string[]
  dev: SplitSummary
  holdout?: SplitSummary
  checks: Check[]
  verdict: 'accept' | 'reject'
  attempt: string
  /** its held-out check was not made: its private data is sealed and there was no key */
  uncertified?: true
}

/**
 * The gate for research contracts judged by a command: for every contract whose editable
 * files the pull request changed, its head is evaluated against the base like an attempt,
 * with the contract of the base and a fresh key (nothing recorded before, by the pull
 * request or anyone, is reused), then the contract's promotion policy decides.
 */
export async function gateContracts(store: RecordStore, ws: Workspace, o: {contracts: readonly Contract[]; changed: readonly string[]; base: string; head: string; certified: boolean} & Omit<EvaluateOptions, 'split'>): Promise<GateContract[]> {
  const out: GateContract[] = []
  const nonce = randomBytes(8).toString('hex')
  for (const c of o.contracts) {
    if (c.dev_eval.evaluator !== 'command') continue
    const changed = o.changed.filter(p => matchesAny(p, c.editable_scope))
    if (!changed.length) continue
    const key = `gate/${c.name}/${o.base}/${o.head}/${nonce}`
    await store.append({kind: 'attempt', key, body: {contract: {name: c.name, digest: c.source.digest, path: c.source.path, ...(c.source.blob ? {blob: c.source.blob} : {})}, branch: `gate/${path.basename(o.head).slice(0, 12)}`, base: {commit: o.base}, head: {commit: o.head}, ordinal: 0, reason: `the gate: pull request head ${o.head.slice(0, 12)} against ${o.base.slice(0, 12)}`}, cites: []}, {lane: o.lane, ...(o.now ? {now: o.now} : {})})
    const id = attemptId(key)
    const eo = {...o, nonce}
    const dev = await evaluateAttempt(store, ws, id, {...eo, split: 'dev'})
    let checks = attemptChecks(c, {boundaryClean: true, dev: dev.summary, basedOnMain: true})
    let holdout: SplitSummary | undefined
    if (o.certified && dev.summary.outcome === 'positive') {
      holdout = (await evaluateAttempt(store, ws, id, {...eo, split: 'holdout'})).summary
      checks = attemptChecks(c, {boundaryClean: true, dev: dev.summary, holdout, basedOnMain: true})
    } else if (!o.certified) checks = checks.filter(x => x.name !== 'held-out improves')
    const dropped = !o.certified && c.promotion.holdout_required
    out.push({contract: c.name, changed, dev: dev.summary, ...(holdout ? {holdout} : {}), checks, verdict: checks.every(x => x.passed) ? 'accept' : 'reject', attempt: id, ...(dropped ? {uncertified: true as const} : {})})
  }
  return out
}
