import {recordId} from '../../records/index.js'
import type {VerificationBody} from '../../records/types.js'
import type {Scenario} from '../../scenarios/types.js'
import {everyCopy, onLane, type Ledger, type LedgerEntry} from '../../store/index.js'
import {checkVerification} from '../evaluator/check.js'
import {episodeKey, laneKey} from './records.js'
import type {VerifiedEpisode} from './summary.js'

export interface PlannedEpisode {
  /** scenario and repetition: one place in the plan, whatever key records it */
  slot: string
  scenario: Scenario
  rep: number
  /** the key to record under first */
  key: string
  /** the episode's canonical key (a lane's own key is derived from it) */
  baseKey: string
}

export interface EpisodePlan {
  total: number
  /** episodes already recorded that stand (replayed and graded again), to reuse */
  reused: (VerifiedEpisode & {slot: string})[]
  pending: PlannedEpisode[]
}

/**
 * Which recorded episodes may be reused: `verified`, any that replays to the same verdict;
 * `none`, nothing (the gate runs every episode itself); `{only}`, just these verifications,
 * each as the lane it maps to holds it (the gate's own shard jobs vouched for them: a copy
 * under the same id that sorts first, from a lane anyone may push, is not theirs); `{vouch}`, those the run's policy lets it
 * take (with signed evidence: its own lane's, and those an evaluation that stands pins,
 * src/trust/reuse.ts) — and in every case only when they replay too.
 */
export type Reuse = 'verified' | 'none' | {only: ReadonlyMap<string, string>} | {vouch: Vouch}

/** Which verifications of a run (its manifest, on its lane) may be reused, as of this ledger: a predicate on one copy of one (its bytes: another lane can write others under its id). */
export type Vouch = (ledger: Ledger, run: {manifest: string; lane: string}) => Promise<(e: LedgerEntry) => boolean>

/** A Reuse resolved against one ledger: everything that replays, nothing, or the copies the predicate admits. */
export type Admit = 'verified' | 'none' | ((e: LedgerEntry) => boolean)

/** Resolve `reuse` for one ledger. */
export async function admitOf(reuse: Reuse, ledger: Ledger, run: {manifest: string; lane: string}): Promise<Admit> {
  if (reuse === 'verified' || reuse === 'none') return reuse
  if ('only' in reuse)
    return e => {
      const lane = reuse.only.get(e.id)
      return lane !== undefined && onLane(ledger, e, lane)
    }
  return reuse.vouch(ledger, run)
}

/**
 * The recorded episode of a place to reuse under one verification id: of its copies (another
 * lane can write other bytes under any id, first in ledger order), the run's own lane's first,
 * then the others in ledger order; the first the run admits whose verdict stands (its trace
 * replays to it) and which is of this very place — the manifest, scenario and repetition (an
 * attack sweep's copies of every repetition's id, all saying repetition 0, were reused and
 * counted once each).
 */
export function reusableCopy(ledger: Ledger, id: string, o: {manifest: string; lane: string; reuse: Admit; evaluators: readonly string[]; scenario: Scenario; rep: number}): LedgerEntry | undefined {
  if (o.reuse === 'none') return undefined
  const copies = everyCopy(ledger, id).filter(c => c.kind === 'verification')
  const own = copies.filter(c => onLane(ledger, c, o.lane, true))
  for (const c of [...own, ...copies.filter(c => !own.includes(c))]) {
    if (o.reuse !== 'verified' && !o.reuse(c)) continue
    const v = ledger.load<'verification'>(c).body as VerificationBody
    if (v.manifest !== o.manifest || v.scenario !== o.scenario.id || (v.repetition ?? 0) !== o.rep) continue
    if (checkVerification(ledger, c, {manifest: o.manifest, evaluators: o.evaluators, scenario: o.scenario}).ok) return c
  }
  return undefined
}

export interface PlanOptions {
  manifest: string
  scenarios: readonly Scenario[]
  repeat: number
  lane: string
  reuse: Admit
  evaluators: readonly string[]
  /** plan only these (scenario, repetition) places, in this order (default: every scenario x repetition) */
  slots?: readonly {scenario: Scenario; rep: number}[]
}

/** The key of one place in a plan: (scenario, repetition). */
export const slotKey = (scenario: string, rep: number) => `${scenario}\u0000${rep}`

const verificationId = (key: string) => recordId('verification', '', `${key}/verification`)

/**
 * Which episodes of an experiment are already recorded and may be reused. A recorded
 * verification is never taken on faith: it counts only when its trace replays in a fresh
 * world to the same verdict. One that does not stand is skipped, and the episode is run
 * again under this lane's own key.
 */
export function planEpisodes(ledger: Ledger, o: PlanOptions): EpisodePlan {
  const reused: EpisodePlan['reused'] = []
  const pending: PlannedEpisode[] = []
  const reuse = o.reuse
  const slots = o.slots ?? o.scenarios.flatMap(scenario => Array.from({length: o.repeat}, (_, rep) => ({scenario, rep})))
  for (const {scenario, rep} of slots) {
    const baseKey = episodeKey(o.manifest, scenario.id, rep)
    const slot = slotKey(scenario.id, rep)
    if (reuse === 'none') {
      pending.push({slot, scenario, rep, key: baseKey, baseKey})
      continue
    }
    let e: LedgerEntry | undefined
    for (const id of [baseKey, laneKey(baseKey, o.lane)].map(verificationId)) if ((e = reusableCopy(ledger, id, {manifest: o.manifest, lane: o.lane, reuse, evaluators: o.evaluators, scenario, rep}))) break
    if (e) reused.push({slot, id: e.id, digest: e.digest, body: ledger.load<'verification'>(e).body as VerificationBody})
    else pending.push({slot, scenario, rep, key: baseKey, baseKey})
  }
  return {total: slots.length, reused, pending}
}
