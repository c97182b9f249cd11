import {canonicalJson} from '../records/canonical.js'
import type {AttemptBody, DecisionBody, ObservationBody, VerdictBody} from '../records/types.js'
import {citedEntry, onLane, type Ledger, type LedgerEntry} from '../store/index.js'
import {judgeObservation} from '../evals/evaluator/command.js'
import {attemptChecks} from '../attempts/promote.js'
import {attemptLane, ownMeasurement} from '../attempts/keys.js'
import {crossedBoundary, summarizeSplit} from '../attempts/summary.js'
import {signature} from './evaluation.js'
import type {Standing, TrustInput} from './types.js'
import {movedMain} from './moved-main.js'

const JUDGED = ['valid', 'outcome', 'metric', 'verified_metrics', 'violations', 'needs_retry', 'baseline', 'invalid_kind'] as const

/**
 * Whether a command evaluator's verdict stands: it judges an observation of this ledger
 * (same digest, attempt, split, repetition and source), under its contract's own evaluator,
 * and applying the contract (by digest) to that observation — against the baseline verdict
 * it names, which must stand too — gives the same judgement; and it and that observation are
 * on the attempt's own lane (attempts/keys.ts, ownMeasurement: a measurement cannot be
 * recomputed, so another lane's of an attempt counts for nothing, foreign_measurement). What it
 * names is looked up on its own lane first (store/own.ts, citedEntry). `at`: an id or an entry.
 */
export function checkVerdict(ledger: Ledger, at: string | LedgerEntry, input: TrustInput, standing: (x: string | LedgerEntry) => Standing): Standing {
  const id = typeof at === 'string' ? at : at.id
  const e = typeof at === 'string' ? ledger.get(at) : at
  if (!e || e.kind !== 'verdict') return {ok: false, class: 'forged_evaluation', reason: `${id} is not a verdict of this ledger`}
  const v = ledger.load<'verdict'>(e).body as VerdictBody
  const s = rederive(ledger, e, v, input, standing)
  if (!s.ok) return s
  // (an attempt this ledger does not hold: no view shows its verdicts)
  const ae = citedEntry(ledger, v.attempt, e)
  if (ae?.kind !== 'attempt') return s
  const attempt = ledger.facts(ae as LedgerEntry & {kind: 'attempt'})
  // (rederive found the observation: the copy with the bytes the verdict judged)
  for (const [x, what] of [[e, 'it is'], [citedEntry(ledger, v.observation, e, v.observation_digest)!, `its observation ${v.observation} is`]] as const) {
    if (!ownMeasurement(ledger, x, ae, attempt)) return {ok: false, class: 'foreign_measurement', reason: `${what} lane ${x.lane}'s, a measurement of attempt ${v.attempt} of lane ${attemptLane(ledger, ae, attempt)}: a measurement cannot be recomputed, and counts only on the attempt's own lane`}
  }
  return s
}

/** Whether a verdict re-derives from its observation and contract, whoever wrote it (checkVerdict). */
function rederive(ledger: Ledger, e: LedgerEntry, v: VerdictBody, input: TrustInput, standing: (x: string | LedgerEntry) => Standing): Standing {
  const bad = (cls: 'forged_evaluation' | 'inconsistent_evaluation' | 'foreign_evaluator', reason: string): Standing => ({ok: false, class: cls, reason})
  if (v.evaluator.id !== `command:${v.contract.name}`) return bad('foreign_evaluator', `judged by ${v.evaluator.id}, not by the evaluator of contract ${v.contract.name}`)
  const signed = signature(e, input)
  if (signed) return signed
  const o = citedEntry(ledger, v.observation, e, v.observation_digest)
  if (!o || o.kind !== 'observation') return bad('forged_evaluation', `its observation ${v.observation} is not in the ledger`)
  if (o.digest !== v.observation_digest) return bad('forged_evaluation', `it judged other bytes than observation ${v.observation} holds`)
  const ob = ledger.load<'observation'>(o).body as ObservationBody
  if (ob.attempt !== v.attempt || ob.split !== v.split || ob.repetition !== v.repetition || canonicalJson(ob.source) !== canonicalJson(v.source ?? null) || ob.evaluator.digest !== v.evaluator.digest) return bad('inconsistent_evaluation', `it and observation ${v.observation} name different runs`)
  const contract = input.contracts?.get(v.contract.digest)
  if (!contract) return {ok: true, level: 'verified'}
  let base: {value: number; verdict?: string} | undefined
  if (v.baseline?.verdict) {
    const be = citedEntry(ledger, v.baseline.verdict, e)
    const b = standing(be ?? v.baseline.verdict)
    if (!b.ok) return bad('inconsistent_evaluation', `its baseline verdict ${v.baseline.verdict} does not stand (${b.class}: \`exp fsck\` names why)`)
    if (!be) return bad('inconsistent_evaluation', `its baseline verdict ${v.baseline.verdict} is not in the ledger`)
    const bb = ledger.load<'verdict'>(be).body as VerdictBody
    if (bb.metric?.value !== v.baseline.value || bb.repetition !== v.repetition || bb.split !== v.split) return bad('inconsistent_evaluation', `its baseline value is not what verdict ${v.baseline.verdict} measured for the same repetition`)
    // runs are paired by seed: a baseline run at another seed measured other episodes
    const bo = citedEntry(ledger, bb.observation, be, bb.observation_digest)
    const bseed = bo?.kind === 'observation' ? (ledger.load<'observation'>(bo).body as ObservationBody).seed : undefined
    if (bseed !== ob.seed) return bad('inconsistent_evaluation', `it is compared with verdict ${v.baseline.verdict}, a run at seed ${bseed ?? '(none)'}, not at its own seed ${ob.seed}: an attempt and its baseline are paired by seed`)
    base = {value: v.baseline.value!, verdict: v.baseline.verdict}
  } else if (v.baseline?.value !== undefined) {
    if (contract.baseline.value !== v.baseline.value) return bad('inconsistent_evaluation', `its baseline value ${v.baseline.value} is not the contract's (${contract.baseline.value})`)
    base = {value: v.baseline.value}
  }
  const again = judgeObservation(ob, contract, base)
  for (const f of JUDGED) {
    // a verdict written before invalid_kind existed has none: the rest of it is still re-derived
    if (f === 'invalid_kind' && v.invalid_kind === undefined) continue
    if (canonicalJson(v[f] ?? null) !== canonicalJson((again as Record<string, unknown>)[f] ?? null)) return bad('inconsistent_evaluation', `applying contract ${contract.name} to observation ${v.observation} gives another ${f}`)
  }
  return {ok: true, level: 'replayed'}
}

/** An accept of an attempt (decision `e`): what the contract's promotion policy gives on the verdicts the decision rests on. */
export function checkAttemptDecision(ledger: Ledger, d: DecisionBody, input: TrustInput, e: LedgerEntry): Standing {
  const lane = e.lane
  const bad = (reason: string): Standing => ({ok: false, class: 'forged_decision', reason})
  const contract = input.contracts?.get(d.policy.digest)
  if (!contract) return bad(`the contract it names (${d.policy.digest.slice(0, 19)}…) is not in this repository`)
  // a measurement cannot be recomputed: a decision rests on its own lane's (attempts/keys.ts,
  // ownEntry: another lane's baseline that scored -10 made an attempt changing nothing better)
  // (its own lane's copy of each: another lane's copy of one under the same id does not replace it)
  const entries = d.evaluations.map(id => citedEntry(ledger, id, e)!)
  const foreign = entries.find(v => !onLane(ledger, v, lane))
  if (foreign) return bad(`it rests on verdict ${foreign.id} of lane ${foreign.lane}: a decision rests on the measurements of its own lane`)
  const verdicts = entries.map(x => ({id: x.id, body: ledger.load<'verdict'>(x).body as VerdictBody}))
  const mine = (split: string) => latestPerRepetition(verdicts.filter(v => v.body.attempt === d.proposal && v.body.split === split))
  const theirs = (split: string) => latestPerRepetition(verdicts.filter(v => v.body.attempt !== d.proposal && v.body.split === split))
  if (!mine('dev').length) return bad(`it rests on no dev verdict of ${d.proposal}: a decision needs evidence`)
  const dev = summarizeSplit(contract, mine('dev'), theirs('dev'), contract.baseline.value)
  const holdout = mine('holdout').length ? summarizeSplit(contract, mine('holdout'), theirs('holdout'), contract.baseline.value) : undefined
  const clean = !verdicts.some(v => v.body.attempt === d.proposal && crossedBoundary(v.body))
  const checks = attemptChecks(contract, {boundaryClean: clean, dev, ...(holdout ? {holdout} : {}), basedOnMain: true})
  const failed = checks.filter(c => !c.passed)
  if (d.verdict === 'accept') return failed.length ? bad(`the contract's policy rejects its evidence: ${failed[0]!.name}: ${failed[0]!.detail}`) : {ok: true, level: 'verified'}
  const attempt = citedEntry(ledger, d.proposal, e)
  const base = attempt?.kind === 'attempt' ? (ledger.load<'attempt'>(attempt).body as AttemptBody).base.commit : undefined
  if (failed.length || movedMain(d, input, base)) return {ok: true, level: 'verified'}
  return bad('the contract\'s policy accepts its evidence, and main has not moved from the attempt\'s base: nothing it names gives a reject')
}

function latestPerRepetition<T extends {body: VerdictBody}>(vs: readonly T[]): T[] {
  const by = new Map<number, T>()
  for (const v of vs) by.set(v.body.repetition, v)
  return [...by.values()].sort((a, b) => a.body.repetition - b.body.repetition)
}
