import {createHash} from 'node:crypto'
import path from 'node:path'
import type {AttemptBody, ObservationBody, VerdictBody} from '../records/types.js'
import {commitText, prepare, type RecordDraft} from '../records/index.js'
import {REJECTED_PREFIX, ownKeys, type Ledger, type RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {BoundaryError, ConflictError, NotFoundError, UntrustedEvidenceError} from '../errors/index.js'
import {contractAt} from '../contracts/load.js'
import type {Contract, EvalSpec} from '../contracts/types.js'
import {matchesAny} from '../gate/glob.js'
import {boundaryOf} from '../gate/boundary.js'
import {splitCommandLine} from '../agents/command/argv.js'
import {commandEvaluatorIdentity, judgeObservation, runCommandEvaluator} from '../evals/evaluator/command.js'
import type {EvaluatorIdentity} from '../evals/evaluator/port.js'
import {withKey, type Redact} from '../redact/index.js'
import {environmentFingerprint} from './environment.js'
import {DEFAULT_SEED, assertOwnAttempt, attemptId, attemptLane, baselineKey, observationKey, ownEntry, ownKey, verdictKey} from './keys.js'
import {unsealPrivateData} from './private-data.js'
import {summarizeSplit, type SplitSummary} from './summary.js'

export type ContractSplit = 'dev' | 'holdout'

export interface EvaluateOptions {
  lane: string
  split: ContractSplit
  worktreeRoot: string
  redact: Redact
  holdoutKey?: Buffer
  now?: () => Date
  /** base seed of the repetitions (repetition r runs with seed + r, for the attempt and its baseline alike) */
  seed?: number
  /** the gate: a key of its own for the baseline, so nothing recorded before is reused */
  nonce?: string
  onProgress?: (line: string) => void
  /** what the evaluator command must not see: the repository and its git dir (runCommandEvaluator) */
  hide?: readonly string[]
  /**
   * the committed state to judge, instead of a new commit of the attempt's work tree: promote
   * judges held-out on the commit its dev evaluation judged (and merges that one), whatever
   * was edited in the work tree meanwhile
   */
  commit?: string
}

export interface Judgement {
  id: string
  body: VerdictBody
}

export interface SplitEvaluation {
  attempt: string
  split: ContractSplit
  source: {commit: string; tree: string}
  boundary: ObservationBody['boundary']
  verdicts: Judgement[]
  baseline: {attempt?: string; value?: number; verdicts: Judgement[]}
  summary: SplitSummary
  /** episodes of the evaluator run by this call (0: all were recorded already) */
  ran: number
}

/** The digest of the protected files at a commit: the evaluator's code and data, as the contract's base has them. */
const harnesses = new Map<string, Promise<string>>()

async function harnessDigest(ws: Workspace, commit: string, contract: Contract): Promise<string> {
  // a commit never changes: one digest per (commit, contract) in a process
  const key = `${commit}\0${contract.source.digest}`
  let hit = harnesses.get(key)
  if (!hit) {
    // (paths and blob ids: the protected data may be large, and none of it is read)
    hit = ws.listTree(commit).then(all => {
      const files = all.filter(f => matchesAny(f.path, contract.protected_scope)).map(f => `${f.path} ${f.blob}`).sort()
      return `sha256:${createHash('sha256').update(files.join('\n')).digest('hex')}`
    })
    harnesses.set(key, hit)
  }
  return hit
}

function latest(ledger: Ledger, attempt: string, tree: string, split: ContractSplit, rep: number, lane: string, seed: number): {retry: number; verdict?: Judgement; observation?: {id: string; body: ObservationBody}} {
  let found: ReturnType<typeof latest> = {retry: -1}
  for (let retry = 0; ; retry++) {
    // only this lane's runs are reused (keys.ts, ownEntry)
    const o = ownEntry(ledger, 'observation', observationKey(attempt, tree, split, rep, retry, seed), lane)
    if (!o) return found
    const v = ownEntry(ledger, 'verdict', verdictKey(o.id), lane)
    found = {retry, observation: {id: o.id, body: ledger.load<'observation'>(o).body as ObservationBody}, ...(v ? {verdict: {id: v.id, body: ledger.load<'verdict'>(v).body as VerdictBody}} : {})}
  }
}

/**
 * Evaluate one committed state of an attempt on one split of its contract: check the
 * boundary (only editable paths changed, renames included), then run the contract's
 * command once per repetition in a fresh checkout, record each observation and the
 * verdict of the validity rules against the baseline's value of the same repetition.
 * Recorded repetitions are reused; one that needs a retry is run again (its next retry,
 * with the resume policy's timeout) until its retries are spent.
 */
export async function evaluateAttempt(store: RecordStore, ws: Workspace, id: string, o: EvaluateOptions): Promise<SplitEvaluation> {
  const ledger = await store.ledger()
  const e = ledger.get(id)
  if (!e || e.kind !== 'attempt') throw new NotFoundError('attempt', id, 'list attempts with `exp attempt list`')
  const attempt = ledger.load<'attempt'>(e).body as AttemptBody
  assertOwnAttempt(id, attempt)
  // another lane's measurements of it count for nothing (keys.ts, ownMeasurement): said before anything runs
  const owner = attempt.ordinal > 0 ? attemptLane(ledger, e, {contract: attempt.contract.name, ordinal: attempt.ordinal}) : o.lane
  if (owner !== o.lane) throw new UntrustedEvidenceError(`attempt ${id} is lane ${owner}'s, not lane ${o.lane}'s: an attempt's observations and verdicts count only on its own lane (docs/trust.md), so lane ${o.lane} does not evaluate or decide it`, `run it on its own lane: --lane ${owner}`, {attempt: id, lane: owner})
  // the contract that judges is the one on the attempt's base, never one the attempt edited
  const contract = await contractAt(ws, attempt.base.commit, attempt.contract.name)
  // its work tree wherever it was opened (`exp attempt new --path DIR` puts it beside the repository)
  const dir = (attempt.ordinal === 0 || attempt.head ? undefined : await ws.workTreeWith(`refs/heads/${attempt.branch}`)) ?? path.join(o.worktreeRoot, id)
  const head = o.commit ?? attempt.head?.commit ?? (attempt.ordinal === 0 ? attempt.base.commit : await headOf(ws, id, attempt, dir))
  const tree = await ws.treeOf(head)
  const changed = head === attempt.base.commit ? [] : await ws.changedPaths(attempt.base.commit, head)
  const scope = await boundaryOf(ws, {base: attempt.base.commit, head, changed}, contract)
  const boundary = {clean: scope.ok, changed, ...(scope.outside.length ? {outside: scope.outside} : {}), ...(scope.protected.length ? {protected: scope.protected} : {}), ...(scope.links.length ? {links: scope.links} : {})}
  const spec = o.split === 'dev' ? contract.dev_eval : contract.holdout_eval
  const evaluator = commandEvaluatorIdentity(contract, await harnessDigest(ws, attempt.base.commit, contract))
  // an attempt that crossed its boundary is not run, so neither is its baseline: the boundary is
  // said before anything runs (the baseline's runs came first, and read as the attempt's)
  const unrun = !boundary.clean && contract.baseline.value === undefined
  const baseline = (attempt.ordinal === 0 && !attempt.head) || unrun ? {verdicts: []} : await baselineOf(store, ws, attempt, contract, o)
  const verdicts: Judgement[] = []
  const tooMany = () => verdicts.filter(v => !(v.body.valid && v.body.metric)).length > contract.validity.max_failed_repetitions
  let ran = 0
  // a resumed evaluation runs the repetitions it had not reached with the resumed timeout too
  let longer: number | undefined
  for (let rep = 0; rep < spec.repetitions; rep++) {
    const before = latest(await store.ledger(), id, tree, o.split, rep, o.lane, o.seed ?? DEFAULT_SEED)
    const v = before.verdict
    const resume = v?.body.needs_retry && v.body.needs_retry.resume.action !== 'abandon'
    if (v && !resume) {
      verdicts.push(v)
      // (one recorded verdict of a crossed boundary says it: evaluating again adds none)
      if (!boundary.clean || tooMany()) break
      continue
    }
    const retry = before.retry + 1
    if (resume && v.body.needs_retry!.resume.timeout_seconds) longer = Math.max(longer ?? 0, v.body.needs_retry!.resume.timeout_seconds)
    const timeout = longer ?? spec.timeout_seconds
    const bv = baseline.verdicts.find(b => b.body.repetition === rep && b.body.valid)
    const baseValue = baseline.value ?? bv?.body.metric?.value
    o.onProgress?.(`${o.split} #${rep}${retry ? ` retry ${retry}` : ''}: ${boundary.clean ? `running ${spec.label}` : 'the boundary is crossed: recorded, the evaluator not run'}`)
    const j = await runOne(store, ws, {id, attempt, contract, spec, evaluator, head, tree, boundary, rep, retry, timeout, baseValue, baseVerdict: bv?.id, o})
    verdicts.push(j)
    ran++
    // repetitions without a number beyond those the contract allows stop the evaluation: the
    // rest would most likely fail the same way (within them, the others run: each counts)
    if (!boundary.clean || tooMany()) break
  }
  if (!boundary.clean) throw new BoundaryError(id, verdicts[0]?.body.violations ?? [])
  return {attempt: id, split: o.split, source: {commit: head, tree}, boundary, verdicts, baseline: {...(baseline.attempt ? {attempt: baseline.attempt} : {}), ...(baseline.value !== undefined ? {value: baseline.value} : {}), verdicts: baseline.verdicts}, summary: summarizeSplit(contract, verdicts, baseline.verdicts, baseline.value), ran}
}

/**
 * Text an attempt's author or agent wrote, as one line of a commit message: control
 * characters (a newline that would start a paragraph of forged trailers, a terminal escape)
 * become spaces, and it is capped.
 */
export function oneLine(text: string, max = 300): string {
  const flat = commitText(text).replace(/[\t\n]/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** The message of an attempt's commit: what it tried, and the Exp-Attempt trailer blame follows. */
export function attemptMessage(id: string, attempt: Pick<AttemptBody, 'reason' | 'ordinal' | 'contract'>): string {
  return `attempt: ${oneLine(attempt.reason ?? `#${attempt.ordinal} of ${attempt.contract.name}`)}\n\nExp-Attempt: ${id}\n`
}

async function headOf(ws: Workspace, id: string, attempt: AttemptBody, dir: string): Promise<string> {
  const {existsSync} = await import('node:fs')
  const tip = await ws.readRef(`refs/heads/${attempt.branch}`)
  if (!tip) {
    // a reject cut short (killed) after it moved the branch to its rejected ref and before its
    // decision was recorded: what it judged is there, and is judged again
    const rejected = await ws.readRef(`${REJECTED_PREFIX}${id}`)
    if (rejected) return rejected
    throw new NotFoundError('attempt branch', attempt.branch, 'open it again with `exp attempt new`')
  }
  if (existsSync(path.join(dir, '.git'))) return ws.commitWorktree(dir, attemptMessage(id, attempt))
  return tip
}

/** The baseline's verdicts on this split: a fixed value, or the contract's baseline revision (default: the attempt's base) evaluated like an attempt and shared by every attempt on that base. */
async function baselineOf(store: RecordStore, ws: Workspace, attempt: AttemptBody, contract: Contract, o: EvaluateOptions): Promise<{attempt?: string; value?: number; verdicts: Judgement[]}> {
  if (contract.baseline.value !== undefined) return {value: contract.baseline.value, verdicts: []}
  const commit = contract.baseline.revision ? ((await ws.resolve(contract.baseline.revision)) ?? attempt.base.commit) : attempt.base.commit
  const key = o.nonce ? `${baselineKey(contract.name, commit)}/${o.nonce}` : baselineKey(contract.name, commit)
  const body: AttemptBody = {contract: attempt.contract, branch: attempt.base.branch ?? 'main', base: {commit, ...(attempt.base.branch ? {branch: attempt.base.branch} : {})}, ordinal: 0, reason: `the baseline of ${contract.name} at ${commit.slice(0, 12)}`}
  // lanes of one repository evaluate a shared baseline one at a time: the second finds it recorded
  return store.exclusive(`baseline-${contract.name}`, async () => {
    // the baseline's record is the same for every lane; another under its key is not it (keys.ts)
    const draft: RecordDraft<'attempt'> = {kind: 'attempt', key, body, cites: []}
    // (past a lane-salted key that another lane holds too, numbered ones: store/own.ts ownKeys)
    const ledger = await store.ledger()
    let own = draft
    for (const k of ownKeys(key, o.lane)) {
      const held = ledger.get(attemptId(k))
      own = {...draft, key: k}
      if (!held || held.digest === prepare(own).digest) break
    }
    const id = (await store.append(own, {lane: o.lane, now: o.now})).id
    // (the baseline's own commit: a state given for the attempt is not the baseline's)
    const r = await evaluateAttempt(store, ws, id, {...o, commit: undefined})
    return {attempt: id, verdicts: r.verdicts}
  }, {timeoutMs: 30 * 60_000})
}

interface RunOne {
  id: string
  attempt: AttemptBody
  contract: Contract
  spec: EvalSpec
  evaluator: EvaluatorIdentity
  head: string
  tree: string
  boundary: ObservationBody['boundary']
  rep: number
  retry: number
  timeout: number
  baseValue?: number
  baseVerdict?: string
  o: EvaluateOptions
}

/**
 * The caller's redaction, and the held-out key in every form it is written in: the evaluator
 * (and the attempt's code it may run) can read the key file exp found it in, and what it
 * prints or writes is recorded.
 */

/** paths of each list of a recorded boundary: 30,000 changed files made an observation over the 1 MiB of a record */
const BOUNDARY_PATHS = 1000

/**
 * A boundary as an observation records it: each path redacted (a file named like a token made
 * the record a secret, refused, and the attempt could never be decided), each list cut to
 * BOUNDARY_PATHS with a last entry that says how many more there are.
 */
export function recordedBoundary(b: ObservationBody['boundary'], redact: Redact): ObservationBody['boundary'] {
  const cut = (l: readonly string[]) => [...l.slice(0, BOUNDARY_PATHS).map(p => redact(p)), ...(l.length > BOUNDARY_PATHS ? [`(and ${l.length - BOUNDARY_PATHS} more)`] : [])]
  return {clean: b.clean, changed: cut(b.changed), ...(b.outside ? {outside: cut(b.outside)} : {}), ...(b.protected ? {protected: cut(b.protected)} : {}), ...(b.links ? {links: cut(b.links)} : {})}
}

async function runOne(store: RecordStore, ws: Workspace, r: RunOne): Promise<Judgement> {
  const o = r.o
  const seed = (o.seed ?? DEFAULT_SEED) + r.rep
  const program = splitCommandLine(r.spec.command ?? '')?.[0]
  const base: ObservationBody = {
    attempt: r.id,
    contract: {name: r.contract.name, digest: r.contract.source.digest},
    split: o.split,
    repetition: r.rep,
    ...(r.retry ? {retry: r.retry} : {}),
    source: {commit: r.head, tree: r.tree, base: r.attempt.base.commit},
    boundary: recordedBoundary(r.boundary, o.redact),
    evaluator: r.evaluator,
    ...(r.spec.command ? {command: r.spec.command} : {}),
    timeout_seconds: r.timeout,
    seed,
    // (the interpreter's version only once the boundary let the evaluator run, and never of a
    // program the attempt can replace: src/attempts/environment.ts)
    environment: await environmentFingerprint(r.boundary.clean ? program : undefined, {hide: o.hide ?? []}),
    ran: false,
  }
  let body: ObservationBody = base
  let wallMs: number | undefined
  let diagnostics: {stdout: string; stderr: string} | undefined
  if (r.boundary.clean) {
    const checkout = path.join(o.worktreeRoot, `eval-${r.id.slice(3, 15)}-${o.split}-${r.rep}-${r.retry}-${process.pid}`)
    await ws.addWorktree(checkout, {commit: r.head})
    // evaluator-only data is held-out data: a dev run (which may run the attempt's own code) never gets it
    const priv = o.split === 'holdout' ? await unsealPrivateData(ws, r.attempt.base.commit, r.contract, o.holdoutKey) : undefined
    try {
      const res = await runCommandEvaluator({spec: r.spec, checkout, ...(priv ? {privateDir: priv.dir, keep: [r.contract.metric.name, ...r.contract.validity.required_metrics]} : {}), seed, repetition: r.rep, timeoutSeconds: r.timeout, redact: withKey(o.redact, o.holdoutKey), ...(o.hide ? {hide: o.hide} : {})})
      // wall time differs between identical runs: it is kept out of the digest (the record's volatile part)
      const {stdout, stderr, duration_ms, ...rest} = res
      diagnostics = {stdout: stdout ?? '', stderr: stderr ?? ''}
      wallMs = duration_ms
      body = {...base, ...rest}
    } finally {
      await priv?.cleanup()
      await ws.removeWorktree(checkout)
    }
  }
  // under this lane's own keys where another lane holds them (keys.ts, ownKey)
  const before = await store.ledger()
  const key = ownKey(before, 'observation', observationKey(r.id, r.tree, o.split, r.rep, r.retry, o.seed ?? DEFAULT_SEED), o.lane)
  const obs: RecordDraft<'observation'> = {kind: 'observation', key, body, cites: [r.id], ...(wallMs === undefined ? {} : {volatile: {duration_ms: wallMs}})}
  const p = prepare(obs)
  const judged = judgeObservation(body, r.contract, r.baseValue === undefined ? undefined : {value: r.baseValue, ...(r.baseVerdict ? {verdict: r.baseVerdict} : {})})
  const verdict: VerdictBody = {observation: p.id, observation_digest: p.digest, attempt: r.id, contract: body.contract, split: o.split, repetition: r.rep, source: body.source, evaluator: r.evaluator, ...judged}
  const vdraft: RecordDraft<'verdict'> = {kind: 'verdict', key: ownKey(before, 'verdict', verdictKey(p.id), o.lane), body: verdict, cites: [p.id, r.id, ...(r.baseVerdict ? [r.baseVerdict] : [])]}
  const vid = prepare(vdraft).id
  try {
    await store.appendBatch([obs, vdraft], {lane: o.lane, now: o.now})
  } catch (e) {
    // another process of this lane recorded this very run first (a shared baseline): its stands
    if (!(e instanceof ConflictError)) throw e
    const l = await store.ledger()
    const v = ownEntry(l, 'verdict', verdictKey(p.id), o.lane)
    if (v) return {id: v.id, body: l.load<'verdict'>(v).body as VerdictBody}
    throw e
  }
  if (diagnostics && (diagnostics.stdout || diagnostics.stderr)) {
    const text = `diagnostics of ${p.id} (${o.split} #${r.rep}): stdout and stderr tails, redacted\n--- stdout\n${diagnostics.stdout}\n--- stderr\n${diagnostics.stderr}`.slice(0, 90_000)
    await store.append({kind: 'note', body: {text, about: [p.id]}, cites: [p.id]}, {lane: o.lane, private: true, now: o.now})
  }
  return {id: vid, body: verdict}
}
