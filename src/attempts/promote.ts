import type {AttemptBody, DecisionBody} from '../records/types.js'
import {onLane, type RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {advanceBranch, finishInterruptedAdvance, findPromotion} from '../workspace/advance.js'
import {ExpError, NotFoundError, WorkTreeBehindError} from '../errors/index.js'
import {REJECTED_PREFIX} from '../store/lanes.js'
import {contractAt} from '../contracts/load.js'
import type {Contract} from '../contracts/types.js'
import type {Check} from '../loop/policy.js'
import {evaluateAttempt, oneLine, type EvaluateOptions, type SplitEvaluation} from './evaluate.js'
import type {SplitSummary} from './summary.js'
import {assertOwnAttempt} from './keys.js'
import {within} from '../paths.js'
import {existsSync, realpathSync} from 'node:fs'
import path from 'node:path'

export interface AttemptPromoteOptions extends Omit<EvaluateOptions, 'split' | 'commit'> {
  mainRef: string
  /** how many times main moved under this decision already (internal: the retry is bounded) */
  raced?: number
}

export interface AttemptDecision {
  attempt: string
  decision: string
  verdict: 'accept' | 'reject'
  checks: Check[]
  reasons: string[]
  merge?: string
  rejected_ref?: string
  dev?: SplitSummary
  holdout?: SplitSummary
}

/** The checks of a contract's promotion policy on what the dev and held-out evaluations say (pure). */
export function attemptChecks(contract: Contract, o: {boundaryClean: boolean; dev: SplitSummary; holdout?: SplitSummary; basedOnMain: boolean}): Check[] {
  const checks: Check[] = [
    {name: 'clean boundary', passed: o.boundaryClean, detail: o.boundaryClean ? 'only editable paths changed' : 'the attempt changed protected or non-editable paths'},
    {name: 'dev improves', passed: o.dev.outcome === 'positive', detail: `${o.dev.outcome}: ${o.dev.reason}`},
    {name: 'based on the current main', passed: o.basedOnMain, detail: o.basedOnMain ? 'main has not moved since the attempt was opened' : 'main moved since the attempt was opened: open a new attempt on it'},
  ]
  if (contract.promotion.holdout_required) {
    checks.push(o.holdout ? {name: 'held-out improves', passed: o.holdout.outcome === 'positive', detail: `${o.holdout.outcome}: ${o.holdout.reason}`} : {name: 'held-out improves', passed: false, detail: 'not evaluated: the checks before it failed'})
  }
  return checks
}

/**
 * `exp attempt promote ID`: the contract's promotion policy (from the attempt's base) on
 * the dev evaluation, then — only if it passes — the held-out evaluation (counted as a
 * look): held-out improvement beyond the margin, with a paired test over repetitions, and a
 * clean boundary. Accept: a merge commit of the attempt branch into main with the trailers
 * of a promotion, then a decision record; reject: a decision record, the branch kept under
 * refs/research/rejected/<id>. Resumable: a decided attempt answers its decision.
 *
 * One decision per attempt: two promotions of one attempt at once (two shells, two lanes
 * resuming it) take turns on a lock, and the second finds the first's decision. Without it
 * the second saw main moved by the first's merge and recorded a reject beside the accept
 * (and moved the merged branch to the rejected ref).
 */
export async function promoteAttempt(store: RecordStore, ws: Workspace, id: string, o: AttemptPromoteOptions): Promise<AttemptDecision> {
  return store.exclusive(`promote-${id}`, () => decideAttempt(store, ws, id, o), {timeoutMs: 24 * 3600_000})
}

async function decideAttempt(store: RecordStore, ws: Workspace, id: string, o: AttemptPromoteOptions): Promise<AttemptDecision> {
  const ledger = await store.ledger()
  const e = ledger.get(id)
  if (!e || e.kind !== 'attempt') throw new NotFoundError('attempt', id, 'list attempts with `exp attempt list`')
  const attempt = ledger.load<'attempt'>(e).body as AttemptBody
  if (attempt.ordinal === 0) throw new ExpError('E_USAGE', `${id} is the baseline of ${attempt.contract.name}, not an attempt`, {hint: 'promote an attempt opened with `exp attempt new`'})
  assertOwnAttempt(id, attempt)
  const main = await ws.readRef(o.mainRef)
  if (!main) throw new NotFoundError('branch', o.mainRef)
  // decided already: by this lane, or by an accept whose merge of this attempt is on main. Another
  // lane's decision does not decide for this one (any lane can record one: a reject written first
  // would have stopped the attempt's promotion for good)
  const decided = ledger.select({kinds: ['decision'], cites: id}).map(x => ({x, id: x.id, body: ledger.load<'decision'>(x).body as DecisionBody})).filter(d => d.body.proposal === id)
  const merged = decided.some(d => d.body.verdict === 'accept') ? await findPromotion(ws, main, id, attempt.base.commit) : undefined
  const previous = decided.find(d => onLane(ledger, d.x, o.lane)) ?? decided.find(d => d.body.verdict === 'accept' && merged && d.body.merge?.commit === merged.oid)
  if (previous) return {attempt: id, decision: previous.id, verdict: previous.body.verdict, checks: previous.body.checks, reasons: previous.body.reasons, ...(previous.body.merge ? {merge: previous.body.merge.commit} : {}), ...(previous.body.rejected_ref ? {rejected_ref: previous.body.rejected_ref} : {})}
  const contract = await contractAt(ws, attempt.base.commit, attempt.contract.name)
  let dev: SplitEvaluation
  try {
    dev = await evaluateAttempt(store, ws, id, {...o, split: 'dev'})
  } catch (err) {
    if (!(err instanceof ExpError && err.code === 'E_BOUNDARY')) throw err
    dev = await evaluateAttemptRecorded(store, ws, id, o)
  }
  // a promotion of this attempt already on main (killed after main moved, before its decision
  // was recorded): it was based on main then, and its merge is the one to record
  const already = await findPromotion(ws, main, id, attempt.base.commit)
  const basedOnMain = already ? already.parents[0] === attempt.base.commit : main === attempt.base.commit
  let checks = attemptChecks(contract, {boundaryClean: dev.boundary.clean, dev: dev.summary, basedOnMain})
  let holdout: SplitEvaluation | undefined
  if (checks.every(c => c.passed || c.name === 'held-out improves')) {
    // (the commit dev judged, not a new one of the work tree: an edit made there while dev ran
    // would otherwise be judged on held-out while the dev-judged commit is merged)
    holdout = await evaluateAttempt(store, ws, id, {...o, split: 'holdout', commit: dev.source.commit})
    checks = attemptChecks(contract, {boundaryClean: dev.boundary.clean, dev: dev.summary, holdout: holdout.summary, basedOnMain})
  }
  const failed = checks.filter(c => !c.passed)
  const verdict: 'accept' | 'reject' = failed.length ? 'reject' : 'accept'
  const reasons = (failed.length ? failed : checks).map(c => `${c.name}: ${c.detail}`)
  const evaluations = [...new Set([...dev.verdicts, ...dev.baseline.verdicts, ...(holdout ? [...holdout.verdicts, ...holdout.baseline.verdicts] : [])].map(v => v.id))]
  const body: DecisionBody = {
    proposal: id,
    verdict,
    policy: {version: 'contract@2', digest: contract.source.digest, path: contract.source.path, ...(contract.source.blob ? {blob: contract.source.blob} : {})},
    evaluations,
    checks,
    reasons,
    regressions: [],
    ...(attempt.hypothesis ? {hypothesis: attempt.hypothesis} : {}),
  }
  // the attempt's own work tree (exp's, under the work tree root) has nothing left to edit once
  // it is decided: it goes then, unless it holds changes made after its evaluation (asked now,
  // while its branch still exists: a reject removes the branch) or exp runs inside it
  const own = path.join(o.worktreeRoot, id)
  const inIt = within(process.cwd(), own)
  const drop = existsSync(own) && !inIt && !(await ws.dirtyFiles(own).catch(() => ['?'])).length
  let behind: WorkTreeBehindError | undefined
  if (verdict === 'accept' && already) {
    body.merge = {commit: already.oid, branch: attempt.branch}
    // (killed before the work tree that has main checked out followed too: it does now)
    await finishInterruptedAdvance(ws, o.mainRef)
  } else if (verdict === 'accept') {
    const message = `exp: promote ${attempt.contract.name} attempt #${attempt.ordinal} (${id})\n\n${holdout!.summary.reason}\n${oneLine(attempt.reason ?? '')}\n\nExp-Promotes: ${id}\nExp-Evidence: ${evaluations.join(' ')}\nExp-Policy: contract@2 ${contract.source.digest}\n`
    const merge = await ws.commitFiles({base: dev.source.commit, parents: [main, dev.source.commit], message, files: []})
    try {
      behind = await advanceBranch(ws, o.mainRef, main, merge)
    } catch (err) {
      // another lane promoted while this one evaluated: nothing is recorded yet, so decide again
      // on the main it left (the attempt is then no longer based on it: a reject that says so);
      // the merge commit made here is left unreferenced
      if (err instanceof ExpError && err.code === 'E_CONFLICT' && (await ws.readRef(o.mainRef)) !== main && (o.raced ?? 0) < 3) return decideAttempt(store, ws, id, {...o, raced: (o.raced ?? 0) + 1})
      throw err
    }
    body.merge = {commit: merge, branch: attempt.branch}
  } else {
    const ref = `${REJECTED_PREFIX}${id}`
    const have = await ws.readRef(ref)
    if (have !== dev.source.commit) await ws.moveRef(ref, dev.source.commit, have)
    // (only while it is the commit dev judged: commits made on it since are kept with it; and
    // only when no work tree stays on it — the attempt's own one is removed below when clean —
    // deleting it under one left that work tree on a branch that does not exist)
    const on = await ws.workTreeWith(`refs/heads/${attempt.branch}`)
    if (on === undefined || (drop && samePath(on, own))) {
      await ws.deleteRef(`refs/heads/${attempt.branch}`, dev.source.commit).catch((e: unknown) => {
        if (!(e instanceof ExpError && e.code === 'E_CONFLICT')) throw e
      })
    }
    body.rejected_ref = ref
  }
  const decision = (await store.append({kind: 'decision', body, cites: [id, ...(attempt.hypothesis ? [attempt.hypothesis] : []), ...evaluations]}, {lane: o.lane, now: o.now})).id
  if (drop) await ws.removeWorktree(own).catch(() => undefined)
  // the promotion stands and is recorded: then the work tree that could not follow it is said
  if (behind) throw behind
  return {attempt: id, decision, verdict, checks, reasons, ...(body.merge ? {merge: body.merge.commit} : {}), ...(body.rejected_ref ? {rejected_ref: body.rejected_ref} : {}), dev: dev.summary, ...(holdout ? {holdout: holdout.summary} : {})}
}

/** An attempt that crossed its boundary: its recorded (invalid) dev verdicts, without running anything. */
async function evaluateAttemptRecorded(store: RecordStore, ws: Workspace, id: string, o: AttemptPromoteOptions): Promise<SplitEvaluation> {
  const ledger = await store.ledger()
  // (this lane's own: keys.ts, ownEntry)
  const verdicts = ledger.select({kinds: ['verdict'], cites: id, lanes: [o.lane], includePrivate: false}).map(x => ({id: x.id, body: ledger.load<'verdict'>(x).body})).filter(v => v.body.attempt === id && v.body.split === 'dev')
  const last = verdicts[verdicts.length - 1]
  const commit = last?.body.source?.commit ?? (await ws.readRef(o.mainRef))!
  return {attempt: id, split: 'dev', source: {commit, tree: last?.body.source?.tree ?? ''}, boundary: {clean: false, changed: []}, verdicts, baseline: {verdicts: []}, summary: {repetitions: verdicts.length, valid: 0, failed: verdicts.length, needs_retry: [], outcome: 'invalid', reason: 'the attempt crossed its contract\'s boundary'}, ran: 0}
}

/** Whether two folders are the same one (links resolved when they exist). */
function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p)
    } catch {
      return path.resolve(p)
    }
  }
  return real(a) === real(b)
}
