import {recordId} from '../records/index.js'
import {UntrustedEvidenceError} from '../errors/index.js'
import {onLane} from '../store/own.js'
import type {Ledger, LedgerEntry} from '../store/ledger.js'

/**
 * Idempotency keys of the contract loop: the same attempt, run or judgement is the same
 * record whatever process writes it, so a rerun after a kill adds nothing already there.
 */
export const attemptKey = (contract: string, lane: string, ordinal: number) => `attempt/${contract}/${lane}/${ordinal}`
/** the baseline of a contract at one commit: shared by every lane and attempt on that base */
export const baselineKey = (contract: string, commit: string) => `baseline/${contract}/${commit}`
/** the seed of repetition 0 when none is given (repetition r runs with seed + r) */
export const DEFAULT_SEED = 42
/**
 * One run: an attempt's tree on a split, one repetition, one retry, at a base seed. A run at
 * another seed is another run (an attempt is paired with its baseline run at the same seed: a
 * baseline recorded at seed 45 paired with an attempt at 42 made a change of nothing "better");
 * the default seed keeps the key it had before seeds were part of it.
 */
export const observationKey = (attempt: string, tree: string, split: string, repetition: number, retry: number, seed = DEFAULT_SEED) => `observation/${attempt}/${tree}/${split}/${repetition}/${retry}${seed === DEFAULT_SEED ? '' : `/seed/${seed}`}`
export const verdictKey = (observation: string) => `verdict/${observation}`

export const attemptId = (key: string) => recordId('attempt', '', key)
export const observationId = (key: string) => recordId('observation', '', key)
export const verdictId = (observation: string) => recordId('verdict', '', verdictKey(observation))

export const attemptBranch = (id: string) => `exp/attempt/${id}`

/**
 * The evidence a lane reuses is its own. The keys of a contract's runs are public or guessable
 * (a baseline's: the contract, the base commit and its tree): another lane could write
 * observations and verdicts under them first — a baseline that scored -10, so that an attempt
 * changing nothing was accepted and merged. So a run is looked up and written with the store's
 * own-lane helpers (src/store/own.ts: ownEntry, ownKey, onLane).
 */
export {onLane, ownEntry, ownKey} from '../store/own.js'

/**
 * The lane whose attempt `attempt` is: of the lanes holding its record (copies of its bytes
 * included), the one whose key gives its id (attemptKey: an attempt's id names its contract, lane
 * and ordinal), so a copy another lane puts first in ledger order does not take it over; an
 * attempt written under another key (by hand): the lane of its first copy.
 */
export function attemptLane(ledger: Ledger, attempt: LedgerEntry, a: {contract: string; ordinal: number}): string {
  const owns = (lane: string) => attemptId(attemptKey(a.contract, lane, a.ordinal)) === attempt.id
  if (owns(attempt.lane)) return attempt.lane
  return ledger.copies(attempt.id).find(d => d.digest === attempt.digest && owns(d.lane))?.lane ?? attempt.lane
}

/**
 * Whether `e`, a measurement of `attempt` (an observation or a verdict of it), counts for it: it
 * is on the attempt's own lane (onLane, the rule a decision's verdicts follow: trust/verdict.ts).
 * A contract's runs cannot be recomputed, and any lane can write runs of any attempt, under keys
 * of its own, that the contract judges like real ones: another lane's copies of an attempt's runs
 * scored 0.99 made a rejected attempt's hypothesis supported in every view. A baseline (ordinal
 * 0) is one record for every lane (evaluate.ts, baselineOf: a lane that finds it recorded adds no
 * copy), and each lane measures it for its own attempts, whose verdicts name that lane's.
 */
export function ownMeasurement(ledger: Ledger, e: LedgerEntry, attempt: LedgerEntry, a: {contract: string; ordinal: number}): boolean {
  return a.ordinal === 0 || onLane(ledger, e, attemptLane(ledger, attempt, a))
}

/**
 * Refuse an attempt record that exp did not open: any lane can append one naming any branch
 * (its main branch among them), and evaluating an attempt commits the edits of that branch's
 * work tree onto it while a reject deletes the branch. `exp attempt new` puts attempt <id> on
 * `exp/attempt/<id>` with no fixed head; a baseline and the gate's attempts (ordinal 0) own no
 * branch and are never decided.
 */
export function assertOwnAttempt(id: string, body: {branch: string; ordinal: number; head?: unknown}): void {
  if (body.ordinal === 0) return
  const own = attemptBranch(id)
  const why = body.branch !== own ? `names branch ${JSON.stringify(body.branch)}, not its own ${own}` : body.head !== undefined ? 'names a fixed head commit, which only the gate gives (to attempts of ordinal 0)' : undefined
  if (why) throw new UntrustedEvidenceError(`attempt ${id} ${why}: \`exp attempt new\` did not write it (another lane's record?), so it is not evaluated or decided`, 'open an attempt of your own with `exp attempt new CONTRACT`', {attempt: id, branch: body.branch})
}
