import {ExpError, NotFoundError} from '../errors/index.js'
import {SplitError} from '../errors/mining.js'
import {prepare, type ExpRecord, type RecordDraft} from '../records/index.js'
import {citedEntry, onLane, type Ledger, type LedgerEntry} from '../store/index.js'
import type {ManifestBody} from '../records/types.js'
import type {VerdictCheck} from './verdicts.js'
import {evidenceSteps} from './evidence.js'
import {drain, drainAsync, type Steps} from './steps.js'
import type {CutTrace} from './view.js'
import {mergeKnowledge, type MergeOptions} from './knowledge.js'
import type {MineOptions, MinedTrace} from './types.js'

export interface LedgerMineOptions extends MineOptions, MergeOptions {
  /**
   * how a recorded verdict is known to be the grader's (replayedVerdicts: replayed and graded
   * again): a trace is learned from only with a verdict that stands
   */
  verdicts: VerdictCheck
  /** the lane mining: a trace of its own fills an episode's place before another lane's */
  lane?: string
  /** with `lane`: only that lane's train manifests (the loop's miner; the runs of others it reuses count, as traces of its manifests) */
  ownManifests?: boolean
  /** only the traces of this manifest (it must be a train manifest) */
  manifest?: string
  /** with `manifest`: also the traces of the train manifests recorded just before it, this many in all (default 1) */
  recent?: number
}

export interface LedgerMineResult {
  /** evidence drafts, best first; each cites the runs it rests on and their verifications */
  evidence: RecordDraft<'evidence'>[]
  /** knowledge drafts citing the evidence ids (and the knowledge they supersede or contradict) */
  knowledge: RecordDraft<'knowledge'>[]
  /** train traces mined */
  traces: number
  /** train traces left out: no valid verification (one whose valid verifications are all forged is counted in `forged` only) */
  skipped: number
  /**
   * valid verifications of mined traces ignored because the grader does not give that
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
   * train traces left out because their valid verifications disagree (another lane can copy a
   * verification with `passed` flipped: the miner learns from neither)
   */
  contradicted: number
  /** train traces read only in part: past the miner's budget of one trace (TRACE_BUDGET, docs/trust.md) */
  cut: CutTrace[]
}

/**
 * Mine a ledger: pure over the records, writes nothing. Reads the public train manifests (or
 * the one asked for, refused with E_SPLIT unless it is train), their traces, and for each trace
 * its latest valid verification (a verification cites its trace). Append `evidence` first,
 * then `knowledge`: knowledge cites evidence ids, computed here with prepare(draft).id.
 */
export function mineFromLedger(ledger: Ledger, options: LedgerMineOptions): LedgerMineResult {
  return drain(ledgerSteps(ledger, options))
}

/**
 * mineFromLedger with a turn for the event loop every few milliseconds of work (steps.ts): what
 * the commands call, so that a SIGTERM or a Ctrl-C stops a long mining at once, before
 * anything is written.
 */
export function mineFromLedgerAsync(ledger: Ledger, options: LedgerMineOptions & {signal?: AbortSignal}): Promise<LedgerMineResult> {
  return drainAsync(ledgerSteps(ledger, options), {signal: options.signal})
}

function* ledgerSteps(ledger: Ledger, options: LedgerMineOptions): Steps<LedgerMineResult> {
  const manifests = trainManifests(ledger, options.manifest, options.recent ?? 1, options.lane, options.ownManifests ?? false)
  // one episode per place of a run (manifest, scenario, repetition): the lane's own trace first, then ledger order
  const places = new Map<string, {mine: boolean; run: MinedTrace}>()
  let skipped = 0
  let foreign = 0
  let contradicted = 0
  let forged = 0
  let unreplayable = 0
  let surplus = 0
  // held-out traces live on private refs: the miner never even loads them
  for (const shown of ledger.select({kinds: ['trace'], includePrivate: false})) {
    if (!shown.cites.some(c => manifests.has(c))) continue
    // each copy of the id with bytes of its own (another lane can write under the key of a lane's
    // trace), the mining lane's first; the first that stands is the id's trace
    for (const e of copiesOf(ledger, shown, options.lane)) {
      const trace = ledger.load<'trace'>(e)
      const m = manifests.get(trace.body.manifest)
      // a trace of the run: its body names a mined manifest, on the train split
      if (!m || trace.body.split !== 'train' || !e.cites.includes(trace.body.manifest)) {
        foreign++
        continue
      }
      const rep = trace.body.repetition ?? 0
      if (!m.dataset.scenarios.includes(trace.body.scenario) || !Number.isInteger(rep) || rep < 0 || rep >= m.repeat) {
        surplus++
        continue
      }
      // its verdict: the valid verifications of these very bytes whose verdict the grader gives (replayed)
      const verdicts: ExpRecord<'verification'>[] = []
      let replayable = true
      let ignored = 0
      for (const v of verificationsOf(ledger, e)) {
        const b = v.body
        if (b.trace !== e.id || b.trace_digest !== e.digest || !b.valid || b.manifest !== trace.body.manifest || b.scenario !== trace.body.scenario || (b.repetition ?? 0) !== rep || b.split !== 'train') continue
        const standing = options.verdicts({digest: e.digest, body: trace.body}, b, m)
        if (standing.stands) verdicts.push(v)
        else if (standing.why === 'unreplayable') replayable = false
        else ignored++
      }
      forged += ignored
      yield
      const verification = verdicts.pop()
      if (!verification) {
        // (a trace whose every verdict is forged is counted by its verdicts)
        if (!replayable) unreplayable++
        else if (!ignored) skipped++
        continue
      }
      if (verdicts.some(v => v.body.passed !== verification.body.passed || v.body.outcome !== verification.body.outcome)) {
        contradicted++
        continue
      }
      const place = `${trace.body.manifest}\u0000${trace.body.scenario}\u0000${rep}`
      const mine = options.lane !== undefined && onLane(ledger, e, options.lane)
      const held = places.get(place)
      if (held && (held.mine || !mine)) {
        surplus++
        break
      }
      if (held) surplus++
      places.set(place, {mine, run: {id: trace.id, body: trace.body, verification: {id: verification.id, body: verification.body}}})
      break
    }
  }
  const traces = [...places.values()].map(p => p.run)
  const verificationOf = new Map(traces.map(t => [t.id, t.verification.id]))
  const mined = yield* evidenceSteps(traces, options)
  const evidence = mined.evidence.map((body): RecordDraft<'evidence'> => {
    const runs = [...body.supporting, ...body.counterexamples]
    return {kind: 'evidence', body, cites: [...runs, ...runs.map(id => verificationOf.get(id)!)]}
  })
  const existing = ledger.records({kinds: ['knowledge']}).map(k => ({id: k.id, body: k.body}))
  const knowledge = mergeKnowledge(evidence.map(d => ({id: prepare(d).id, body: d.body})), existing, options)
  return {evidence, knowledge, traces: traces.length, skipped, foreign, contradicted, forged, unreplayable, surplus, cut: mined.cut}
}

/** A run under memory mode off or recall_only kept its episodes out of experience (docs/compare.md): evidence of its evaluation only. */
function experience(m: ExpRecord<'manifest'>): boolean {
  const mode = m.body.memory?.mode
  return mode !== 'off' && mode !== 'recall_only'
}

/** The copies of an entry's id with bytes of their own, public ones, the one on `lane` first. */
function copiesOf(ledger: Ledger, shown: LedgerEntry, lane: string | undefined): LedgerEntry[] {
  const copies = ledger.copies(shown.id)
  if (!copies.length) return [shown]
  const seen = new Set<string>()
  const all = [shown, ...copies].filter(c => !c.private && !seen.has(c.digest) && seen.add(c.digest))
  return lane === undefined ? all : [...all.filter(c => onLane(ledger, c, lane)), ...all.filter(c => !onLane(ledger, c, lane))]
}

/** The verifications citing a trace, every copy of each id (a lane's own may be hidden behind another lane's under the same id). */
function verificationsOf(ledger: Ledger, trace: LedgerEntry): ExpRecord<'verification'>[] {
  const out: ExpRecord<'verification'>[] = []
  for (const v of ledger.citedBy(trace.id)) {
    if (v.kind !== 'verification') continue
    for (const c of [v, ...ledger.copies(v.id)]) if (c === v || (c.digest !== v.digest && !c.private)) out.push(ledger.load<'verification'>(c) as ExpRecord<'verification'>)
  }
  return out
}

/**
 * The manifests to mine, by id: every public train manifest (`own`: the lane's), or the one
 * named (train only) and the `recent - 1` such train manifests before it; never a run whose
 * memory mode does not record. With a lane, each manifest is the lane's own copy of its id when
 * it has one (another lane can write other bytes under it).
 */
function trainManifests(ledger: Ledger, only: string | undefined, recent: number, lane: string | undefined, own: boolean): Map<string, ManifestBody> {
  const copy = (e: LedgerEntry) => (lane === undefined ? e : (citedEntry(ledger, e.id, {lane, private: false}) ?? e))
  const train = ledger
    .select({kinds: ['manifest'], includePrivate: false})
    .filter(e => !own || (lane !== undefined && onLane(ledger, e, lane)))
    .map(e => ledger.load<'manifest'>(copy(e)) as ExpRecord<'manifest'>)
    .filter(m => m.body.split === 'train' && experience(m))
  const byId = (ms: readonly ExpRecord<'manifest'>[]) => new Map(ms.map(m => [m.id, m.body]))
  if (only !== undefined) {
    const e = ledger.get(only)
    if (!e || e.kind !== 'manifest') throw new NotFoundError('manifest', only, 'list manifests with `exp ledger --kind manifest`')
    const m = ledger.load<'manifest'>(copy(e)) as ExpRecord<'manifest'>
    if (m.body.split !== 'train') throw new SplitError('manifest', only, m.body.split)
    if (!experience(m)) throw new ExpError('E_USAGE', `manifest ${only} ran with memory mode ${m.body.memory!.mode}: its episodes are not experience to mine`, {hint: 'mine a run recorded with --memory-mode record_only or closed_loop'})
    const at = train.findIndex(x => x.id === only)
    return byId([m, ...(at < 0 ? [] : train.slice(Math.max(0, at - recent + 1), at))])
  }
  return byId(train)
}
