import {existsSync} from 'node:fs'
import {lstat, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {execFile} from 'node:child_process'
import type {AttemptBody, HypothesisBody, VerdictBody} from '../records/types.js'
import {sliceText} from '../records/summary.js'
import type {RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {BoundaryError, BudgetError, ConflictError, ExpError, FileTooLargeError, NotFoundError, ResearchAgentError, WorktreeError} from '../errors/index.js'
import {contractAt} from '../contracts/load.js'
import {publicContract, type Contract} from '../contracts/types.js'
import {checkScope, presentOf} from '../gate/scope.js'
import {claimHypothesis, DEFAULT_TTL_SECONDS} from '../lifecycle/claim.js'
import {releaseHypothesis} from '../lifecycle/release.js'
import {attemptMessage, evaluateAttempt, oneLine, type EvaluateOptions} from './evaluate.js'
import {openAttempt} from './open.js'
import {promoteAttempt} from './promote.js'
import {attemptViews} from './view.js'
import {attemptBranch, attemptId, attemptKey, ownMeasurement} from './keys.js'
import {fileKey} from './agents/search.js'
import type {ResearchAgent, ResearchMove, ResearchTask} from './agents/types.js'
import {moveDigest, moveKey} from './agents/types.js'
import {recalls, type MemoryMode} from '../evals/runner/memory.js'

export interface ResearchOptions extends Omit<EvaluateOptions, 'split'> {
  contract: string
  agent: ResearchAgent
  /** this lane's attempts to make in all (a rerun of the same command completes them, it does not add more) */
  attempts: number
  mainRef: string
  claimTtlSeconds?: number
  /**
   * docs/compare.md: closed_loop (the default) shows the agent every lane's evidence and
   * knowledge; recall_only all but this lane's own (it reads memory, adds nothing to what it
   * reads); record_only and off show neither (attempts stay recorded: they are the evaluation)
   */
  memoryMode?: MemoryMode
  onEvent?: (line: string) => void
}

export interface ResearchResult {
  contract: string
  lane: string
  agent: string
  attempts: {id: string; ordinal: number; state: string; reason?: string; dev?: number; holdout?: number; decision?: string}[]
  promoted: number
  rejected: number
  resumed: number
  /** why the run ended before its budget, if it did */
  stopped?: string
  main: string
}

/**
 * `exp research CONTRACT --agent A --attempts N`: a leaderless research lane. For each of
 * its attempts: resume a needs_retry attempt of this lane first; else ask the agent for the
 * next move (it sees the public part of the contract, the editable files on main, the
 * public evidence of every lane's attempts and recalled knowledge), record the hypothesis,
 * claim it (two lanes never work on the same move), open the attempt, apply the move in its
 * work tree, evaluate it on dev and let the contract's policy decide. Every step is keyed:
 * killed and run again, the lane finishes the same attempts and spends its budget once.
 */
export async function research(store: RecordStore, ws: Workspace, o: ResearchOptions): Promise<ResearchResult> {
  const t0 = Date.now()
  const say = o.onEvent ?? (() => {})
  let resumed = 0
  let stopped: string | undefined
  const main = async () => {
    const tip = await ws.readRef(o.mainRef)
    if (!tip) throw new NotFoundError('branch', o.mainRef, `commit the contract on the main branch first (exp init --example tuning does)`)
    return tip
  }
  // ordinals a person took with `exp attempt new` on this lane (no proposer): theirs to
  // evaluate and decide, passed over (and not counted) — research used to evaluate and decide
  // them, the person's edits half made, and leave their --path work tree on a deleted branch
  let last = o.attempts
  for (let ordinal = 1; ordinal <= last; ordinal++) {
    const contract = await contractAt(ws, await main(), o.contract)
    if (contract.budget.max_wall_seconds && (Date.now() - t0) / 1000 > contract.budget.max_wall_seconds) {
      stopped = `the contract's wall-clock budget (${contract.budget.max_wall_seconds} s) is spent`
      break
    }
    resumed += await resumeOwn(store, ws, o, say)
    const key = attemptKey(o.contract, o.lane, ordinal)
    const id = attemptId(key)
    const ledger = await store.ledger()
    const have = ledger.get(id)
    if (have && have.kind === 'attempt' && !(ledger.load<'attempt'>(have).body as AttemptBody).proposer) {
      say(`#${ordinal} ${id}: opened by hand (exp attempt new): left to you, passed over`)
      last++
      continue
    }
    if (have) {
      // decided before (a rerun): said once, not evaluated and decided again line by line —
      // the replayed verdict lines read as if it had run again
      const done = attemptViews(ledger, o.contract, {ownDecisions: true}).find(a => a.id === id)?.decision
      if (done) {
        say(`#${ordinal} ${id}: decided before (${done.verdict}${done.merge ? `, merge ${done.merge.slice(0, 12)}` : ''})`)
        continue
      }
      say(`#${ordinal} ${id}: opened before, not decided: evaluating it`)
      await settle(store, ws, id, o, say)
      continue
    }
    await checkLanes(store, contract, o.lane, (o.now ?? (() => new Date()))(), o.claimTtlSeconds ?? DEFAULT_TTL_SECONDS)
    const picked = await pick(store, ws, contract, ordinal, o, say)
    if (!picked) {
      stopped = 'the agent has no move left to try'
      break
    }
    const tip = (await ws.readRef(o.mainRef))!
    const mainFiles = (await ws.listTree(tip)).map(f => f.path)
    const refused = refusedMove(picked.move, contract, mainFiles) ?? (picked.move.patch ? await unappliedPatch(ws, tip, contract, picked.move, mainFiles) : undefined)
    if (refused) {
      await releaseHypothesis(store, {hypothesis: picked.hypothesis, lane: o.lane, now: o.now ?? (() => new Date())}).catch(() => undefined)
      throw refused
    }
    const opened = await openAttempt(store, ws, {contract: o.contract, lane: o.lane, mainRef: o.mainRef, worktreeRoot: o.worktreeRoot, ordinal, hypothesis: picked.hypothesis, proposer: {name: o.agent.name, ...(o.agent.params ? {params: o.agent.params} : {})}, reason: picked.move.reason, ...(o.now ? {now: o.now} : {})}).catch(e => {
      if (e instanceof BudgetError) stopped = e.message
      throw e
    })
    say(`#${ordinal} ${opened.id}: ${picked.move.reason}`)
    await applyMove(opened.dir, picked.move, contract)
    await ws.commitWorktree(opened.dir, attemptMessage(opened.id, {reason: picked.move.reason, ordinal, contract: {name: o.contract, digest: opened.contract.source.digest}}))
    await settle(store, ws, opened.id, o, say)
    await releaseHypothesis(store, {hypothesis: picked.hypothesis, lane: o.lane, now: o.now ?? (() => new Date())}).catch(() => undefined)
  }
  resumed += await resumeOwn(store, ws, o, say)
  const views = attemptViews(await store.ledger(), o.contract, {ownDecisions: true}).filter(a => a.lane === o.lane)
  return {
    contract: o.contract,
    lane: o.lane,
    agent: o.agent.name,
    attempts: views.map(a => ({id: a.id, ordinal: a.ordinal, state: a.state, ...(a.splits.dev?.mean !== undefined ? {dev: a.splits.dev.mean} : {}), ...(a.splits.holdout?.mean !== undefined ? {holdout: a.splits.holdout.mean} : {}), ...(a.decision ? {decision: a.decision.verdict} : {})})),
    promoted: views.filter(a => a.state === 'accepted').length,
    rejected: views.filter(a => a.state === 'rejected').length,
    resumed,
    ...(stopped ? {stopped} : {}),
    main: await main(),
  }
}

/** Evaluate an attempt on dev and let the policy decide, unless it needs a retry (resumed later). */
async function settle(store: RecordStore, ws: Workspace, id: string, o: ResearchOptions, say: (l: string) => void): Promise<void> {
  try {
    const dev = await evaluateAttempt(store, ws, id, {...o, split: 'dev'})
    say(`  dev ${dev.summary.outcome}: ${dev.summary.reason}`)
    if (dev.summary.outcome === 'needs_retry') return
  } catch (e) {
    if (!(e instanceof BoundaryError)) throw e
    say(`  boundary: ${e.message}`)
  }
  const d = await promoteAttempt(store, ws, id, {...o})
  say(`  ${d.verdict.toUpperCase()}${d.merge ? ` merge ${d.merge.slice(0, 12)}` : ''}: ${d.reasons[0] ?? ''}`)
}

/** This lane's undecided attempts that need a retry: evaluate them again (the resume policy), then decide. */
async function resumeOwn(store: RecordStore, ws: Workspace, o: ResearchOptions, say: (l: string) => void): Promise<number> {
  let n = 0
  for (const a of attemptViews(await store.ledger(), o.contract, {ownDecisions: true})) {
    if (a.lane !== o.lane || a.state !== 'needs_retry') continue
    say(`resume ${a.id} (#${a.ordinal}): needs_retry`)
    await settle(store, ws, a.id, o, say)
    n++
  }
  return n
}

/**
 * At most max_parallel_lanes lanes research one contract at once: lanes with an undecided
 * attempt they have worked on within the claim TTL (its record or a verdict of it). An attempt
 * left undecided for longer stops counting: a lane that opened attempts and went away (or
 * opened them to hold the others off) does not stop every other lane for good.
 */
async function checkLanes(store: RecordStore, contract: Contract, lane: string, now: Date, ttlSeconds: number): Promise<void> {
  const ledger = await store.ledger()
  const since = now.getTime() - ttlSeconds * 1000
  // (a time from the future beyond a few minutes of clock skew is a writer's word: not taken)
  const until = now.getTime() + 5 * 60_000
  const fresh = (t: number) => t >= since && t <= until
  const worked = new Set<string>()
  for (const e of ledger.select({kinds: ['verdict']})) {
    const v = ledger.load<'verdict'>(e)
    const at = (v.body as VerdictBody).attempt
    const a = ledger.get(at)
    // (its own lane's verdicts: another lane's would keep a lane busy that went away, keys.ts ownMeasurement)
    if (fresh(Date.parse(v.created_at)) && a?.kind === 'attempt' && ownMeasurement(ledger, e, a, ledger.facts(a as typeof a & {kind: 'attempt'}))) worked.add(at)
  }
  const recent = (id: string) => {
    const e = ledger.get(id)
    return worked.has(id) || (e !== undefined && fresh(Date.parse(ledger.load(e).created_at)))
  }
  const busy = new Set(attemptViews(ledger, contract.name, {ownDecisions: true}).filter(a => !a.decision && a.lane !== lane && recent(a.id)).map(a => a.lane))
  if (busy.size >= contract.budget.max_parallel_lanes) throw new BudgetError(contract.name, `${busy.size} other lane(s) are working on it (max_parallel_lanes ${contract.budget.max_parallel_lanes})`, `wait for them to decide their attempts (exp attempt list shows them; an attempt nobody worked on for ${ttlSeconds} s, claims.ttl_seconds, stops counting), or raise budget.max_parallel_lanes in the contract (a reviewed change on main)`)
}

/** The next move of the agent that no other lane holds, its hypothesis recorded and claimed by this lane. */
async function pick(store: RecordStore, ws: Workspace, contract: Contract, ordinal: number, o: ResearchOptions, say: (l: string) => void): Promise<{move: ResearchMove; hypothesis: string} | undefined> {
  const exclude: string[] = []
  for (let tries = 0; tries < 20; tries++) {
    const task = await taskFor(store, ws, contract, ordinal, o, exclude)
    const proposed = await o.agent.propose(task)
    if (!proposed) return undefined
    // what an agent writes reaches records and commit messages: redacted, and its reason one line
    const move: ResearchMove = {...proposed, hypothesis: {statement: o.redact(proposed.hypothesis.statement), mechanism: o.redact(proposed.hypothesis.mechanism)}, reason: oneLine(o.redact(proposed.reason))}
    const hyp: HypothesisBody = {
      statement: sliceText(move.hypothesis.statement, 2000),
      mechanism: sliceText(move.hypothesis.mechanism, 2000) || 'proposed by the research agent',
      expected_effect: {metric: contract.metric.name, direction: contract.metric.direction === 'maximize' ? 'increase' : 'decrease', split: 'validation', ...(contract.metric.margin ? {margin: contract.metric.margin} : {})},
      conditions: [`contract ${contract.name} at ${task.files.map(f => f.path).join(', ')}`],
      mechanism_family: contract.name,
    }
    // the same move on the same main is the same hypothesis, whichever lane proposes it; another
    // lane that recorded it first in other words (another agent's, or a record planted under
    // its key) holds it: another move, as when it is claimed
    const recorded = await store.append({kind: 'hypothesis', key: `research/${contract.name}/${await ws.readRef(o.mainRef)}/${moveDigest(move)}`, body: hyp, cites: []}, {lane: o.lane, ...(o.now ? {now: o.now} : {})}).catch((e: unknown) => {
      if (!(e instanceof ConflictError)) throw e
      say(`  ${move.reason}: lane ${String((e.data as {lane?: string}).lane ?? 'another')} recorded this move on this main first, in other words; another move`)
      exclude.push(moveKey(move), fileKey(move.edits ?? []))
      return undefined
    })
    if (!recorded) continue
    const id = recorded.id
    try {
      await claimHypothesis(store, {hypothesis: id, lane: o.lane, ttlSeconds: o.claimTtlSeconds ?? DEFAULT_TTL_SECONDS, now: o.now ?? (() => new Date())})
      return {move, hypothesis: id}
    } catch (e) {
      if (!(e instanceof ExpError && (e.code === 'E_CLAIMED' || e.code === 'E_STATE'))) throw e
      say(`  ${move.reason}: ${e.message}; another move`)
      exclude.push(moveKey(move), fileKey(move.edits ?? []))
    }
  }
  return undefined
}

async function taskFor(store: RecordStore, ws: Workspace, contract: Contract, ordinal: number, o: ResearchOptions, exclude: string[]): Promise<ResearchTask> {
  const tip = await ws.readRef(o.mainRef)
  const editable = await editableFiles(ws, tip!, contract)
  const ledger = await store.ledger()
  const evidence = []
  const mode = o.memoryMode ?? 'closed_loop'
  const shown = (lane: string) => recalls(mode) && (mode === 'closed_loop' || lane !== o.lane)
  for (const a of attemptViews(ledger, contract.name, {ownDecisions: true})) {
    if (!shown(a.lane)) continue
    const body = ledger.load<'attempt'>(ledger.get(a.id)!).body as AttemptBody
    // (its own branch: the record's `branch` is its writer's word, see assertOwnAttempt)
    const branchTip = (await ws.readRef(`refs/heads/${attemptBranch(a.id)}`)) ?? (await ws.readRef(`refs/research/rejected/${a.id}`)) ?? a.decision?.merge
    const files = branchTip ? await editableFiles(ws, branchTip, contract, {skipTooLarge: true}) : []
    evidence.push({attempt: a.id, ordinal: a.ordinal, lane: a.lane, state: a.state, ...(body.reason ? {reason: body.reason} : {}), ...(a.splits.dev ? {dev: {...(a.splits.dev.mean !== undefined ? {mean: a.splits.dev.mean} : {}), outcome: Object.keys(a.splits.dev.outcomes).join(',')}} : {}), ...(a.splits.holdout?.mean !== undefined ? {holdout: {mean: a.splits.holdout.mean}} : {}), files})
  }
  const knowledge = ledger.select({kinds: ['knowledge']}).filter(e => shown(e.lane)).map(e => ({id: e.id, body: ledger.load<'knowledge'>(e).body})).filter(k => k.body.scope.workflows?.includes(contract.name)).slice(-8).map(k => ({id: k.id, text: k.body.claim.text}))
  return {protocol: 1, contract: publicContract(contract), files: editable, evidence, knowledge, exclude, seed: (o.seed ?? 42) + ordinal, ordinal}
}

/**
 * The contract's editable files at a commit, as text. The tree is listed without reading it
 * (a research repository may hold data sets); only the editable files are read, each up to
 * the workspace's limit (FileTooLargeError names one over it). With skipTooLarge, such a file
 * is left out instead: an earlier attempt's branch, written by an agent, must not stop the
 * loop for every attempt after it.
 *
 * Editable as the boundary reads it: a path an editable glob matches that is also protected
 * (`conf/**` editable, `conf/gold/**` protected: the evaluator's answers) is not the agent's to
 * see. It was sent to the agent whole, though it could never change it.
 */
async function editableFiles(ws: Workspace, commit: string, contract: Contract, o: {skipTooLarge?: boolean} = {}): Promise<{path: string; content: string}[]> {
  const out: {path: string; content: string}[] = []
  const tree = await ws.listTree(commit)
  const paths = tree.map(f => f.path)
  const scope = checkScope(paths, contract, [], presentOf(paths, contract.protected_scope ?? []))
  const off = new Set([...scope.outside, ...scope.protected, ...scope.links])
  for (const e of tree.filter(f => !off.has(f.path))) {
    try {
      const bytes = await ws.readFile(commit, e.path)
      if (bytes) out.push({path: e.path, content: bytes.toString('utf8')})
    } catch (err) {
      if (!(o.skipTooLarge && err instanceof FileTooLargeError)) throw err
    }
  }
  return out
}

/** An edit's path that no work tree may take (a control character, outside it, in .git): why, or undefined. */
function editPathProblem(dir: string, p: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- a NUL or a control character in a path is what is refused
  if (/[\u0000-\u001f\u007f]/.test(p)) return 'has a control character in its name'
  const to = path.resolve(dir, p)
  if (path.isAbsolute(p) || !to.startsWith(dir + path.sep) || p.split(/[\\/]/).some(part => part.toLowerCase() === '.git')) return 'leaves the work tree'
  return undefined
}

/**
 * A line of a unified diff that makes git apply read a file by its name: the source of a copy
 * or a rename (git's header lines `copy from`, `rename from`, `rename old`, and their
 * destinations). git apply checks the paths it writes, not those it reads: `copy from
 * ../../holdout.key` put the held-out key beside the work tree (in .git/exp) into the
 * attempt's commit, and the next task sent it back to the agent as evidence.
 */
const COPY_OR_RENAME = /^(?:copy|rename) [^\n]*/m

/**
 * A binary patch (a line git reads as one: `GIT binary patch`, `Binary files …`, `Files …`,
 * with full index lines): git apply takes its postimage from the object database when it holds the
 * blob its index line names, so a move could write any blob of the repository — a protected
 * file, a private lane's record — into the attempt by its id, and test which ids exist.
 */
const BINARY = /^(?:GIT binary patch|Binary files |Files )[^\n]*/m

/** the folders a path is in, outermost first: `a/b/c.txt` -> `a`, `a/b` */
function foldersOf(p: string): string[] {
  const parts = p.split('/').slice(0, -1)
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'))
}

/**
 * A move whose paths no work tree may take, refused before an attempt is opened for it: an
 * attempt opened first was left open with nothing of the move in it, and the next run
 * evaluated it unchanged and recorded it as a neutral result of a move never made.
 */
export function refusedMove(move: ResearchMove, contract: Contract, mainFiles: readonly string[] = []): BoundaryError | undefined {
  const root = path.resolve('/work-tree')
  // the files of main the attempt is opened on, and their folders: an edit of a folder, or of a
  // path below a file, failed after the attempt was opened (EISDIR, ENOTDIR), and the next run
  // recorded a result of the move never made (found by an attack sweep)
  const files = new Set(mainFiles)
  const folders = new Set(mainFiles.flatMap(foldersOf))
  const refuse = (why: string) => new BoundaryError('move', [`${why} (refused; editable: ${contract.editable_scope.join(', ')})`], {what: "the research agent's", hint: 'the move was refused before an attempt was opened for it: no attempt is recorded, its hypothesis is released; a research agent may edit only the editable scope of its contract (exp contract lint NAME shows it), and its unified diff may change, add and delete text files, not copy or rename them'})
  for (const e of move.edits ?? []) {
    const why = editPathProblem(root, e.path)
    if (why) return refuse(`an edit of ${JSON.stringify(e.path)} ${why}`)
    const rel = path.posix.normalize(e.path)
    const above = foldersOf(rel).find(a => files.has(a))
    if (folders.has(rel)) return refuse(`an edit of ${JSON.stringify(e.path)} names a folder of main, not a file`)
    if (above) return refuse(`an edit of ${JSON.stringify(e.path)} goes below ${JSON.stringify(above)}, a file of main`)
  }
  const copy = move.patch ? COPY_OR_RENAME.exec(move.patch) : null
  if (copy) return refuse(`its unified diff copies or renames a file (${JSON.stringify(copy[0].slice(0, 200))}): git apply would read the source wherever it is, outside the work tree too`)
  const binary = move.patch ? BINARY.exec(move.patch) : null
  if (binary) return refuse(`its unified diff is a binary patch (${JSON.stringify(binary[0].slice(0, 200))}): git apply would take the file from the repository's objects by the id its index line names`)
  return undefined
}

/**
 * A move's unified diff that does not apply to the editable files of main as the agent was
 * given them (with the move's edits written first, as applyMove writes them): checked with `git
 * apply --check` in a folder of its own that holds only those files, outside any repository,
 * before an attempt is opened. Applied first in the attempt's work tree, a patch that failed
 * left the attempt open with nothing of the move in it (the next run recorded a result of a move
 * never made), and one that changed a protected file applied or not as the agent guessed its
 * lines: an oracle on files it is never shown (found by an attack sweep).
 */
async function unappliedPatch(ws: Workspace, tip: string, contract: Contract, move: ResearchMove, mainFiles: readonly string[]): Promise<ResearchAgentError | undefined> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'exp-move-'))
  try {
    const write = async (p: string, content: string | null) => {
      const to = path.resolve(dir, p)
      if (content === null) return rm(to, {force: true})
      await mkdir(path.dirname(to), {recursive: true})
      await writeFile(to, content)
    }
    const given = await editableFiles(ws, tip, contract, {skipTooLarge: true})
    for (const f of given) await write(f.path, f.content)
    // (their paths were checked by refusedMove: none leaves the folder)
    for (const e of move.edits ?? []) await write(e.path, e.content)
    const env: NodeJS.ProcessEnv = {...process.env, GIT_CEILING_DIRECTORIES: path.dirname(dir)}
    for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR']) delete env[k]
    const apply = (args: string[]) =>
      new Promise<{out: string; err?: string}>(resolve => {
        const child = execFile('git', ['apply', ...args, '-'], {cwd: dir, env, maxBuffer: 16 * 1024 * 1024}, (err, out, text) => resolve({out, ...(err ? {err: text.split(dir + path.sep).join('').trim() || err.message} : {})}))
        child.stdin!.end(move.patch)
      })
    // a file of main the patch names that the agent is not given stands there as a placeholder:
    // a patch creating it fails here as in the attempt (it passed here and failed after the
    // attempt was opened), and one changing it fails whatever the agent guessed of its lines
    const shown = new Set([...given.map(f => f.path), ...(move.edits ?? []).map(e => path.posix.normalize(e.path))])
    const inMain = new Set(mainFiles)
    const named = (await apply(['--numstat', '-z'])).out.split('\0').map(r => r.split('\t').pop()!).filter(Boolean)
    for (const p of named) if (inMain.has(p) && !shown.has(p)) await write(p, NOT_SHOWN)
    const {err: stderr} = await apply(['--check', '--whitespace=nowarn'])
    return stderr === undefined ? undefined : new ResearchAgentError('patch', `its unified diff does not apply to the editable files as main has them (nothing was opened or recorded): ${stderr}`)
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}

/** what a file of main the agent is not shown holds when a move's patch is checked (unappliedPatch) */
const NOT_SHOWN = '(a file of main the research agent is not shown)\n'

/** Write a move into the attempt's work tree: whole files, or a unified diff through git apply. Paths may not leave the work tree. */
export async function applyMove(dir: string, move: ResearchMove, contract: Contract): Promise<void> {
  for (const e of move.edits ?? []) {
    const to = path.resolve(dir, e.path)
    const refuse = (why: string) => new BoundaryError(`in ${dir}`, [`an edit of ${JSON.stringify(e.path)} ${why} (refused; editable: ${contract.editable_scope.join(', ')})`])
    const why = editPathProblem(dir, e.path)
    if (why) throw refuse(why)
    // a symbolic link already in the work tree (main may hold one) would take the write
    // elsewhere: no folder on the way may be one, nor the file itself unless it is deleted
    const parts = path.relative(dir, to).split(path.sep)
    for (let i = 0; i < parts.length; i++) {
      const at = path.join(dir, ...parts.slice(0, i + 1))
      const st = await lstat(at).catch(() => undefined)
      if (!st) break
      if (st.isSymbolicLink() && !(i === parts.length - 1 && e.content === null)) throw refuse(`goes through the symbolic link ${JSON.stringify(parts.slice(0, i + 1).join('/'))}`)
    }
  }
  for (const e of move.edits ?? []) {
    const to = path.resolve(dir, e.path)
    if (e.content === null) await rm(to, {force: true})
    else {
      await mkdir(path.dirname(to), {recursive: true})
      await writeFile(to, e.content)
    }
  }
  if (move.patch) {
    // (refusedMove says why first; this is the wall)
    if (COPY_OR_RENAME.test(move.patch)) throw new BoundaryError(`in ${dir}`, ['a unified diff that copies or renames a file (refused: git apply reads the source wherever it is)'])
    if (BINARY.test(move.patch)) throw new BoundaryError(`in ${dir}`, ['a binary patch (refused: git apply takes it from the repository\'s objects by id)'])
    await new Promise<void>((resolve, reject) => {
      const child = execFile('git', ['apply', '--whitespace=nowarn', '-'], {cwd: dir}, (err, _out, stderr) => (err ? reject(new ResearchAgentError('patch', `its unified diff does not apply to the editable files as main has them: ${stderr.trim()}`)) : resolve()))
      child.stdin!.end(move.patch)
    })
  }
  if (!existsSync(dir)) throw new WorktreeError(dir, 'the attempt\'s work tree is gone')
}
