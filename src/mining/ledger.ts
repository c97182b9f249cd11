import {ExpError, NotFoundError} from '../errors/index.js'
import {SplitError} from '../errors/mining.js'
import {prepare, type ExpRecord, type RecordDraft} from '../records/index.js'
import {citedEntry, onLane, type Ledger, type LedgerEntry} from '../store/index.js'
import type {ManifestBody} from '../records/types.js'
import type {VerdictCheck} from './verdicts.js'
import {evidenceSteps} from './evidence.js'
import {selectRuns, type RunSelection} from './runs.js'
import {drain, drainAsync, type Steps} from './steps.js'
import type {CutTrace} from './view.js'
import {mergeKnowledge, type MergeOptions} from './knowledge.js'
import type {MineOptions} from './types.js'

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
  /**
   * the episodes the lane's runs used, as their evaluations pin them: verification id -> the
   * digest of the copy used (the loop's miner: its runs' own and those they reused from other
   * lanes). Their traces fill their places before any other lane's (runs.ts, selectRuns).
   */
  anchors?: ReadonlyMap<string, string>
  /** only the traces of this manifest (it must be a train manifest) */
  manifest?: string
  /** with `manifest`: also the traces of the train manifests recorded just before it, this many in all (default 1) */
  recent?: number
}

export interface LedgerMineResult extends Omit<RunSelection, 'traces'> {
  /** evidence drafts, best first; each cites the runs it rests on and their verifications */
  evidence: RecordDraft<'evidence'>[]
  /** knowledge drafts citing the evidence ids (and the knowledge they supersede or contradict) */
  knowledge: RecordDraft<'knowledge'>[]
  /** train traces mined */
  traces: number
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
  // one trace per place of a run, each with a verdict the grader gives (runs.ts)
  const {traces, ...counts} = yield* selectRuns(ledger, manifests, options.verdicts, options.lane, options.anchors)
  const verificationOf = new Map(traces.map(t => [t.id, t.verification.id]))
  const mined = yield* evidenceSteps(traces, options)
  const evidence = mined.evidence.map((body): RecordDraft<'evidence'> => {
    const runs = [...body.supporting, ...body.counterexamples]
    return {kind: 'evidence', body, cites: [...runs, ...runs.map(id => verificationOf.get(id)!)]}
  })
  const known = ledger.select({kinds: ['knowledge']})
  const existing = known.map(e => ({id: e.id, body: ledger.load<'knowledge'>(e).body}))
  const lane = options.lane
  const ownIds = lane === undefined ? undefined : new Set(known.filter(e => onLane(ledger, e, lane)).map(e => e.id))
  const knowledge = mergeKnowledge(evidence.map(d => ({id: prepare(d).id, body: d.body})), existing, {...options, ...(ownIds ? {own: (id: string) => ownIds.has(id)} : {})})
  return {evidence, knowledge, traces: traces.length, ...counts, cut: mined.cut}
}

/** A run under memory mode off or recall_only kept its episodes out of experience (docs/compare.md): evidence of its evaluation only. */
function experience(m: ExpRecord<'manifest'>): boolean {
  const mode = m.body.memory?.mode
  return mode !== 'off' && mode !== 'recall_only'
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
