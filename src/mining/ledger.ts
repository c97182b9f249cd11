import {ExpError, NotFoundError} from '../errors/index.js'
import {SplitError} from '../errors/mining.js'
import {prepare, type ExpRecord, type RecordDraft} from '../records/index.js'
import {compareEntries, type Ledger, type LedgerEntry} from '../store/ledger.js'
import {lanesOf} from '../store/own.js'
import {evidenceSteps} from './evidence.js'
import {drain, drainAsync, type Steps} from './steps.js'
import type {CutTrace} from './view.js'
import {mergeKnowledge, type MergeOptions} from './knowledge.js'
import type {MineOptions, MinedTrace} from './types.js'

export interface LedgerMineOptions extends MineOptions, MergeOptions {
  /** only the traces of this manifest (it must be a train manifest) */
  manifest?: string
  /** only this lane's train manifests, and its runs of them (the loop's mining step: docs/mining.md, "In the loop") */
  lane?: string
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
  /** train traces left out: no valid verification */
  skipped: number
  /**
   * traces left out that cite a mined manifest but are not of its run: another manifest or
   * split in their body (any lane can cite any manifest: a validation trace citing a train
   * manifest once stopped every later mining)
   */
  foreign: number
  /**
   * train traces left out because their valid verifications on the trace's own lane disagree
   * (the miner learns from neither)
   */
  contradicted: number
  /**
   * records of a mined run left out because no lane holding its manifest wrote them: traces on
   * other lanes, and verifications of a mined trace on other lanes than the trace's (any lane
   * can copy a trace, or a verification with `passed` flipped: it neither adds a run nor confirms
   * or contradicts a verdict)
   */
  ignored: number
  /** train traces read only in part: past the miner's budget of one trace (TRACE_BUDGET, docs/trust.md) */
  cut: CutTrace[]
}

/**
 * Mine a ledger: pure over the records, writes nothing. Reads the public train manifests (or
 * the one asked for, refused with E_SPLIT unless it is train), their traces on the lanes that
 * hold them, and for each trace its latest valid verification on the trace's lane (a
 * verification cites its trace). Append `evidence` first,
 * then `knowledge`: knowledge cites evidence ids, computed here with prepare(draft).id.
 */
export function mineFromLedger(ledger: Ledger, options: LedgerMineOptions = {}): LedgerMineResult {
  return drain(ledgerSteps(ledger, options))
}

/**
 * mineFromLedger with a turn for the event loop every few milliseconds of work (steps.ts): what
 * the commands call, so that a SIGTERM or a Ctrl-C stops a long mining at once, before
 * anything is written.
 */
export function mineFromLedgerAsync(ledger: Ledger, options: LedgerMineOptions & {signal?: AbortSignal} = {}): Promise<LedgerMineResult> {
  return drainAsync(ledgerSteps(ledger, options), {signal: options.signal})
}

function* ledgerSteps(ledger: Ledger, options: LedgerMineOptions): Steps<LedgerMineResult> {
  const manifests = trainManifests(ledger, options.manifest, options.recent ?? 1, options.lane)
  const traces: MinedTrace[] = []
  let skipped = 0
  let foreign = 0
  let contradicted = 0
  // A run is the records of the lanes that hold its manifest (copies of its bytes: two lanes that
  // ran the same thing): its traces on such a lane, and their verdicts on the trace's lane. Any
  // lane can cite any manifest and trace: copies of a lane's traces, with verdicts flipped, under
  // its manifest, were mined as its runs, and flipped verdicts of its own traces dropped theirs.
  // Every public copy is read, not only the one shown first: a copy another lane put first in
  // ledger order under a trace's or a verification's key does not hide the lane's own.
  const copies = ledger.duplicates.filter(d => !d.private && (d.kind === 'trace' || d.kind === 'verification'))
  const verificationCopies = new Map<string, LedgerEntry[]>()
  for (const d of copies) {
    if (d.kind !== 'verification') continue
    for (const c of d.cites) {
      const list = verificationCopies.get(c)
      if (list) list.push(d)
      else verificationCopies.set(c, [d])
    }
  }
  // each trace's bytes (id and digest), with the lanes that hold them and a manifest they cite
  const runs = new Map<string, {e: LedgerEntry; lanes: Set<string>}>()
  const unowned = new Set<string>()
  // held-out traces live on private refs: the miner never even loads them
  for (const e of [...ledger.select({kinds: ['trace'], includePrivate: false}), ...copies.filter(d => d.kind === 'trace')]) {
    const key = `${e.id} ${e.digest}`
    const own = e.cites.some(c => manifests.get(c)?.has(e.lane))
    if (!own) {
      if (e.cites.some(c => manifests.has(c))) unowned.add(key)
      continue
    }
    const run = runs.get(key)
    if (run) run.lanes.add(e.lane)
    else runs.set(key, {e, lanes: new Set([e.lane])})
  }
  // traces of a mined run that no lane holding its manifest wrote: ignored
  let ignored = [...unowned].filter(k => !runs.has(k)).length
  for (const {e, lanes} of runs.values()) {
    const trace = ledger.load<'trace'>(e)
    // a trace of the run: its body names a mined manifest, on the train split, that its lane holds
    const own = [...lanes].filter(l => manifests.get(trace.body.manifest)?.has(l))
    if (!own.length || trace.body.split !== 'train') {
      foreign++
      continue
    }
    // its verdict: the valid verifications of these very bytes on the trace's lane, which must
    // agree (the grader is deterministic; a copy with `passed` flipped, on that lane, makes the
    // trace contradicted); another lane's neither confirm nor contradict it: ignored
    const cited = [...ledger.citedBy(e.id), ...(verificationCopies.get(e.id) ?? [])].filter(v => v.kind === 'verification' && !v.private)
    const mine = new Map<string, LedgerEntry>()
    const others = new Set<string>()
    for (const v of cited.sort(compareEntries)) {
      if (own.includes(v.lane)) mine.set(`${v.id} ${v.digest}`, v)
      else others.add(`${v.id} ${v.digest}`)
    }
    ignored += [...others].filter(k => !mine.has(k)).length
    const verdicts = [...mine.values()].map(v => ledger.load<'verification'>(v)).filter(v => v.body.trace === e.id && v.body.trace_digest === e.digest && v.body.valid)
    const verification = verdicts.pop()
    if (!verification) {
      skipped++
      continue
    }
    if (verdicts.some(v => v.body.passed !== verification.body.passed || v.body.outcome !== verification.body.outcome)) {
      contradicted++
      continue
    }
    traces.push({id: trace.id, body: trace.body, verification: {id: verification.id, body: verification.body}})
    yield
  }
  const verificationOf = new Map(traces.map(t => [t.id, t.verification.id]))
  const mined = yield* evidenceSteps(traces, options)
  const evidence = mined.evidence.map((body): RecordDraft<'evidence'> => {
    const runs = [...body.supporting, ...body.counterexamples]
    return {kind: 'evidence', body, cites: [...runs, ...runs.map(id => verificationOf.get(id)!)]}
  })
  const existing = ledger.records({kinds: ['knowledge']}).map(k => ({id: k.id, body: k.body}))
  const knowledge = mergeKnowledge(evidence.map(d => ({id: prepare(d).id, body: d.body})), existing, options)
  return {evidence, knowledge, traces: traces.length, skipped, foreign, contradicted, ignored, cut: mined.cut}
}

/** A run under memory mode off or recall_only kept its episodes out of experience (docs/compare.md): evidence of its evaluation only. */
function experience(m: ExpRecord<'manifest'>): boolean {
  const mode = m.body.memory?.mode
  return mode !== 'off' && mode !== 'recall_only'
}

/**
 * The manifests to mine, each with the lanes whose runs of it are mined (those holding it:
 * lanesOf): every public train manifest, or the one named (train only) and the `recent - 1`
 * train manifests before it; never a run whose memory mode does not record. With `lane`, only
 * that lane's manifests and its runs of them (the loop mines its own lane's experience).
 */
function trainManifests(ledger: Ledger, only: string | undefined, recent: number, lane: string | undefined): Map<string, ReadonlySet<string>> {
  const entries = ledger.select({kinds: ['manifest'], includePrivate: false})
  const lanes = new Map<string, ReadonlySet<string>>()
  const records = ledger.loadAll<'manifest'>(entries)
  const train: string[] = []
  for (const [i, m] of records.entries()) {
    if (m.body.split !== 'train' || !experience(m as ExpRecord<'manifest'>)) continue
    const held = lanesOf(ledger, entries[i]!)
    if (lane !== undefined && !held.has(lane)) continue
    lanes.set(m.id, lane !== undefined ? new Set([lane]) : held)
    train.push(m.id)
  }
  if (only !== undefined) {
    const e = ledger.get(only)
    if (!e || e.kind !== 'manifest') throw new NotFoundError('manifest', only, 'list manifests with `exp ledger --kind manifest`')
    const m = ledger.load<'manifest'>(e) as ExpRecord<'manifest'>
    if (m.body.split !== 'train') throw new SplitError('manifest', only, m.body.split)
    if (!experience(m)) throw new ExpError('E_USAGE', `manifest ${only} ran with memory mode ${m.body.memory!.mode}: its episodes are not experience to mine`, {hint: 'mine a run recorded with --memory-mode record_only or closed_loop'})
    const at = train.indexOf(only)
    // (a manifest of another lane's, with `lane`: none of its runs is this lane's)
    if (at < 0) return new Map()
    return new Map(train.slice(Math.max(0, at - recent + 1), at + 1).map(id => [id, lanes.get(id)!]))
  }
  return lanes
}
