import type {ExpRecord} from '../records/index.js'
import type {ManifestBody} from '../records/types.js'
import {citedEntry, everyCopy, onLane, type Ledger, type LedgerEntry} from '../store/index.js'
import type {Steps} from './steps.js'
import type {MinedTrace} from './types.js'
import type {VerdictCheck} from './verdicts.js'

/** Which traces of a ledger the miner learns from, and what it left out (LedgerMineResult's counts). */
export interface RunSelection {
  /** one per place a run planned, with its verdict */
  traces: MinedTrace[]
  /** train traces left out: no valid verification (one whose valid verifications are all forged is counted in `forged` only) */
  skipped: number
  /**
   * valid verifications of the traces ignored because the grader does not give that
   * verdict: replayed in a fresh world and graded again, the trace gets another (or does not
   * replay). Any lane can append a verification of any trace; the miner learns from none of these.
   */
  forged: number
  /** train traces left out because their scenarios are not at hand to replay them (another scenarios folder than this run's) */
  unreplayable: number
  /**
   * train traces left out because another trace fills their place in the run: one episode
   * per scenario and repetition of a manifest (the lane's own first), and a repetition or
   * scenario the manifest does not plan has none
   */
  surplus: number
  /**
   * traces left out that cite a mined manifest but are not of its run: another manifest or
   * split in their body (any lane can cite any manifest: a validation trace citing a train
   * manifest once stopped every later mining)
   */
  foreign: number
  /**
   * train traces left out because verifications of theirs that stand disagree (the grader is
   * deterministic: not with one version of it; a flipped copy does not stand, it is `forged`)
   */
  contradicted: number
}

/**
 * Traces of one other lane judged for one place of a run before the rest of that lane's are
 * left out (sweep 36: any number of costly traces that do not stand, in one place, were all
 * replayed). Per lane, not per place: two failing copies a place by one lane, first in ledger
 * order, once used up every place's tries and left a lane that mines a third lane's runs
 * learning nothing from them (sweep 37).
 */
export const PLACE_TRIES = 2

type Fate = 'skipped' | 'unreplayable' | 'surplus' | 'foreign' | 'contradicted' | 'forged'

/**
 * The runs of `manifests` the miner learns from: one trace per place a manifest planned
 * (scenario × repetition), each with a verdict the grader gives (`verdicts`: replayed). Every
 * public copy of a trace id is a candidate (another lane can write other bytes under the key of
 * a lane's trace, or a copy citing nothing that the ledger shows first), the mining lane's
 * first: an id or a place it recorded a trace of (whatever that trace's verdict) is never
 * another lane's, a candidate for a place already held is left out before it is replayed, and
 * at most PLACE_TRIES candidates of each other lane are judged per place. A trace's verdict is its
 * first that stands, the mining lane's own verification first, then one on the trace's lane,
 * then ledger order, so that copies of a verification under other keys do not change what
 * evidence cites. An id left out is counted once, by why its first candidate was; `forged`
 * counts verifications.
 */
export function* selectRuns(ledger: Ledger, manifests: ReadonlyMap<string, ManifestBody>, verdicts: VerdictCheck, lane: string | undefined, anchors: ReadonlyMap<string, string> = new Map()): Steps<RunSelection> {
  const mine = (e: LedgerEntry) => lane !== undefined && onLane(ledger, e, lane)
  const byTrace = verificationsByTrace(ledger)
  const own: LedgerEntry[] = []
  const others: LedgerEntry[] = []
  // held-out traces live on private refs: the miner never even loads them
  for (const shown of ledger.select({kinds: ['trace'], includePrivate: false})) {
    for (const e of publicCopies(ledger, shown)) if (e.cites.some(c => manifests.has(c))) (mine(e) ? own : others).push(e)
  }
  // the episodes the lane's runs used from other lanes, as their evaluations pin them: before
  // any other lane's (an attack sweep's standing episodes of every place of a third lane's run,
  // first in ledger order, took the places of the episodes the lane's evolve had reused)
  const pinned = anchoredTraces(ledger, anchors, manifests)
  const key = (e: LedgerEntry) => `${e.id}\u0000${e.digest}`
  const places = new Map<string, MinedTrace>()
  // the ids and places the mining lane recorded a trace of, whatever its verdict: its own (an
  // episode of its that ended invalid once left its place, and its id, to another lane's bytes)
  const ownIds = new Set(own.map(e => e.id))
  const ownPlaces = new Set<string>()
  const judged = new Map<string, number>()
  const mined = new Set<string>()
  const fate = new Map<string, Fate>()
  const note = (id: string, why: Fate) => void (fate.has(id) || fate.set(id, why))
  let forged = 0
  const tried = new Set<string>()
  const anchoredEntries = [...pinned.values()].map(p => p.trace)
  for (const [e, isOwn] of [...own.map(e => [e, true] as const), ...anchoredEntries.map(e => [e, false] as const), ...others.map(e => [e, false] as const)]) {
    if (mined.has(e.id) || tried.has(key(e))) continue
    tried.add(key(e))
    const anchor = pinned.get(key(e))?.verification
    if (!isOwn && ownIds.has(e.id)) {
      note(e.id, 'surplus')
      continue
    }
    const trace = ledger.load<'trace'>(e)
    const b = trace.body
    const m = manifests.get(b.manifest)
    // a trace of the run: its body names a mined manifest, on the train split, and cites it
    if (!m || b.split !== 'train' || !e.cites.includes(b.manifest)) {
      note(e.id, 'foreign')
      continue
    }
    const rep = b.repetition ?? 0
    const place = `${b.manifest}\u0000${b.scenario}\u0000${rep}`
    if (!m.dataset.scenarios.includes(b.scenario) || !Number.isInteger(rep) || rep < 0 || rep >= m.repeat || places.has(place) || (!isOwn && ownPlaces.has(place))) {
      note(e.id, 'surplus')
      continue
    }
    if (isOwn) ownPlaces.add(place)
    // another lane's traces for a place still empty: the first few of each lane in ledger order are judged, no more (each may cost its replay)
    const tries = `${place}\u0000${e.lane}`
    if (!isOwn && !anchor && (judged.get(tries) ?? 0) >= PLACE_TRIES) {
      note(e.id, 'surplus')
      continue
    }
    const candidates = (byTrace.get(e.id) ?? [])
      .map(v => ({v, rank: anchor && v.id === anchor.id && v.digest === anchor.digest ? -1 : mine(v) ? 0 : v.lane === e.lane ? 1 : 2}))
      .sort((x, y) => x.rank - y.rank)
      .map(x => ledger.load<'verification'>(x.v) as ExpRecord<'verification'>)
      .filter(v => v.body.trace === e.id && v.body.trace_digest === e.digest && v.body.valid && v.body.manifest === b.manifest && v.body.scenario === b.scenario && (v.body.repetition ?? 0) === rep && v.body.split === 'train')
    if (!candidates.length) {
      note(e.id, 'skipped')
      continue
    }
    if (!isOwn && !anchor) judged.set(tries, (judged.get(tries) ?? 0) + 1)
    const stand: ExpRecord<'verification'>[] = []
    let replayable = true
    for (const v of candidates) {
      const s = verdicts({digest: e.digest, body: b}, v.body, m)
      if (s.stands) stand.push(v)
      else if (s.why === 'unreplayable') replayable = false
      else forged++
    }
    yield
    const verification = stand[0]
    if (!verification) {
      note(e.id, replayable ? 'forged' : 'unreplayable')
      continue
    }
    if (stand.some(v => v.body.passed !== verification.body.passed || v.body.outcome !== verification.body.outcome)) {
      note(e.id, 'contradicted')
      continue
    }
    places.set(place, {id: trace.id, body: b, verification: {id: verification.id, body: verification.body}})
    mined.add(e.id)
  }
  const count = (why: Fate) => [...fate].filter(([id, f]) => f === why && !mined.has(id)).length
  return {traces: [...places.values()], skipped: count('skipped'), forged, unreplayable: count('unreplayable'), surplus: count('surplus'), foreign: count('foreign'), contradicted: count('contradicted')}
}

/**
 * The traces the anchors (verification id -> digest) judge, each with that verification: the
 * copy of the verification with that digest, and the copy of its trace with the digest it
 * judged, public both, of a mined manifest (by `${id}\0${digest}` of the trace).
 */
function anchoredTraces(ledger: Ledger, anchors: ReadonlyMap<string, string>, manifests: ReadonlyMap<string, ManifestBody>): Map<string, {trace: LedgerEntry; verification: LedgerEntry}> {
  const out = new Map<string, {trace: LedgerEntry; verification: LedgerEntry}>()
  for (const [id, digest] of anchors) {
    const v = everyCopy(ledger, id).find(c => c.kind === 'verification' && !c.private && c.digest === digest)
    if (!v) continue
    const body = ledger.load<'verification'>(v).body
    const t = citedEntry(ledger, body.trace, v, body.trace_digest)
    if (!t || t.kind !== 'trace' || t.private || t.digest !== body.trace_digest || !t.cites.some(c => manifests.has(c))) continue
    out.set(`${t.id}\u0000${t.digest}`, {trace: t, verification: v})
  }
  return out
}

/** An entry and the other public copies of its id with bytes of their own. */
function publicCopies(ledger: Ledger, shown: LedgerEntry): LedgerEntry[] {
  // (the entry given first, as the select that found it shows it: its private copy may be the id's first)
  const copies = ledger.copies(shown.id)
  if (!copies.length) return [shown]
  const seen = new Set<string>()
  return [shown, ...copies].filter(c => !c.private && !seen.has(c.digest) && seen.add(c.digest))
}

/**
 * Public verifications by the ids they cite, every copy of each id (`ledger.citedBy` indexes
 * the copy the ledger shows: another lane's copy under the id of a lane's verification, citing
 * nothing, once hid it from the miner).
 */
function verificationsByTrace(ledger: Ledger): Map<string, LedgerEntry[]> {
  const out = new Map<string, LedgerEntry[]>()
  for (const shown of ledger.select({kinds: ['verification'], includePrivate: false})) {
    for (const v of publicCopies(ledger, shown)) {
      for (const c of v.cites) {
        const list = out.get(c)
        if (list) list.push(v)
        else out.set(c, [v])
      }
    }
  }
  return out
}
