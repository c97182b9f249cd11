import {ExpError, NotFoundError} from '../errors/index.js'
import {SplitError} from '../errors/mining.js'
import {prepare, type ExpRecord, type RecordDraft} from '../records/index.js'
import type {Ledger} from '../store/ledger.js'
import {evidenceSteps} from './evidence.js'
import {drain, drainAsync, type Steps} from './steps.js'
import type {CutTrace} from './view.js'
import {mergeKnowledge, type MergeOptions} from './knowledge.js'
import type {MineOptions, MinedTrace} from './types.js'

export interface LedgerMineOptions extends MineOptions, MergeOptions {
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
  /** train traces left out: no valid verification */
  skipped: number
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
  const manifests = trainManifests(ledger, options.manifest, options.recent ?? 1)
  const traces: MinedTrace[] = []
  let skipped = 0
  let foreign = 0
  let contradicted = 0
  // held-out traces live on private refs: the miner never even loads them
  for (const e of ledger.select({kinds: ['trace'], includePrivate: false})) {
    if (!e.cites.some(c => manifests.has(c))) continue
    const trace = ledger.load<'trace'>(e)
    // a trace of the run: its body names a mined manifest, on the train split
    if (!manifests.has(trace.body.manifest) || trace.body.split !== 'train') {
      foreign++
      continue
    }
    // its verdict: the valid verifications of these very bytes, which must agree (the grader is
    // deterministic; a copy with `passed` flipped, on any lane, makes the trace contradicted)
    const verdicts = ledger.citedBy(e.id).filter(v => v.kind === 'verification').map(v => ledger.load<'verification'>(v)).filter(v => v.body.trace === e.id && v.body.trace_digest === e.digest && v.body.valid)
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
  return {evidence, knowledge, traces: traces.length, skipped, foreign, contradicted, cut: mined.cut}
}

/** A run under memory mode off or recall_only kept its episodes out of experience (docs/compare.md): evidence of its evaluation only. */
function experience(m: ExpRecord<'manifest'>): boolean {
  const mode = m.body.memory?.mode
  return mode !== 'off' && mode !== 'recall_only'
}

/** Ids of the manifests to mine: every public train manifest, or the one named (train only) and the `recent - 1` train manifests before it; never a run whose memory mode does not record. */
function trainManifests(ledger: Ledger, only: string | undefined, recent: number): Set<string> {
  const train = ledger.records({kinds: ['manifest']}).filter(m => m.body.split === 'train' && experience(m as ExpRecord<'manifest'>)).map(m => m.id)
  if (only !== undefined) {
    const e = ledger.get(only)
    if (!e || e.kind !== 'manifest') throw new NotFoundError('manifest', only, 'list manifests with `exp ledger --kind manifest`')
    const m = ledger.load<'manifest'>(e) as ExpRecord<'manifest'>
    if (m.body.split !== 'train') throw new SplitError('manifest', only, m.body.split)
    if (!experience(m)) throw new ExpError('E_USAGE', `manifest ${only} ran with memory mode ${m.body.memory!.mode}: its episodes are not experience to mine`, {hint: 'mine a run recorded with --memory-mode record_only or closed_loop'})
    const at = train.indexOf(only)
    return new Set([only, ...train.slice(Math.max(0, at - recent + 1), Math.max(0, at))])
  }
  return new Set(train)
}
