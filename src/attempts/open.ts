import path from 'node:path'
import type {AttemptBody} from '../records/types.js'
import type {Ledger, RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {BudgetError, ExpError, InvalidInputError, NotFoundError, WorktreeError} from '../errors/index.js'
import {contractAt} from '../contracts/load.js'
import type {Contract} from '../contracts/types.js'
import {attemptBranch, attemptId, attemptKey} from './keys.js'
import {realPathOf, within} from '../paths.js'
import {existsSync, readdirSync, statSync} from 'node:fs'

export interface OpenOptions {
  contract: string
  lane: string
  mainRef: string
  /** where linked work trees go (.git/exp/worktrees) */
  worktreeRoot: string
  /** the attempt's own work tree (default: <worktreeRoot>/<id>) */
  path?: string
  hypothesis?: string
  /** the needs_retry attempt this one resumes */
  resumes?: string
  /** default: the lane's next */
  ordinal?: number
  proposer?: AttemptBody['proposer']
  reason?: string
  now?: () => Date
}

export interface OpenedAttempt {
  id: string
  branch: string
  dir: string
  base: string
  ordinal: number
  contract: Contract
  /** false: it was there already (a rerun) */
  created: boolean
}

/** The attempts of a contract in the ledger (baselines, ordinal 0, left out). */
export function attemptsOf(ledger: Ledger, contract: string, lane?: string): {id: string; lane: string; body: AttemptBody}[] {
  return ledger
    .select({kinds: ['attempt'], ...(lane ? {lanes: [lane]} : {})})
    .map(e => ({id: e.id, lane: e.lane, body: ledger.load<'attempt'>(e).body as AttemptBody}))
    .filter(a => a.body.contract.name === contract && a.body.ordinal > 0)
}

/**
 * `exp attempt new CONTRACT`: an attempt record (its id derives from contract, lane and
 * ordinal, so a rerun finds it), the branch exp/attempt/<id> at main's tip and a linked
 * work tree on it where the attempt is edited. The contract is the one committed on main.
 */
export async function openAttempt(store: RecordStore, ws: Workspace, o: OpenOptions): Promise<OpenedAttempt> {
  const main = await ws.readRef(o.mainRef)
  if (!main) throw new NotFoundError('branch', o.mainRef, 'commit the contract on the main branch first')
  // inside the repository's own work tree, an attempt's would show as an untracked change of
  // main (and block every promotion, which needs main's checkout clean): refused before anything is written
  // (by real paths: a link on the way to --path, or to the repository, must not take it inside)
  const wanted = o.path ? realPathOf(path.resolve(o.path)) : undefined
  const root = ws.root ? realPathOf(ws.root) : undefined
  if (wanted && root && within(wanted, root) && !within(wanted, path.join(root, '.git'))) {
    throw new InvalidInputError(`--path ${o.path} is inside the repository's work tree (${root}): an attempt's work tree goes beside it, not in it`, {flag: 'path', path: o.path}, `e.g. --path ${path.join(path.dirname(root), `${path.basename(root)}-attempt`)}, or leave --path out (.git/exp/worktrees/<id>)`)
  }
  // inside a git dir (this repository's or any), its files would be refs and objects to git:
  // `--path .git/refs/research/lanes/x` made every file of the checkout a broken ref. Only
  // exp's own place for work trees there is taken
  const gitDir = wanted ? gitDirAbove(wanted) : undefined
  if (wanted && gitDir && !within(wanted, path.join(gitDir, 'exp', 'worktrees'))) {
    throw new InvalidInputError(`--path ${o.path} is inside a git directory (${gitDir}): git would read the attempt's files as its own (refs, objects, config)`, {flag: 'path', path: o.path}, 'name a folder outside the repository, or leave --path out (.git/exp/worktrees/<id>)')
  }
  // a folder already there that is not an attempt's work tree: git worktree add would refuse it
  // after the attempt is recorded (an attempt without a work tree): refused first
  if (wanted && existsSync(wanted) && !existsSync(path.join(wanted, '.git')) && !emptyFolder(wanted)) {
    throw new InvalidInputError(`--path ${o.path} is ${statSync(wanted).isDirectory() ? 'a folder that is not empty' : 'a file'}: an attempt's work tree is made in a new or empty folder`, {flag: 'path', path: o.path}, 'name a folder that does not exist yet, or leave --path out (.git/exp/worktrees/<id>)')
  }
  const ledger = await store.ledger()
  const mine = attemptsOf(ledger, o.contract, o.lane)
  // an id another lane's record holds (written first under this lane's key) is not this lane's
  // attempt: the next ordinal is taken instead, and an --ordinal that names one is refused
  const foreign = (n: number) => {
    const e = ledger.get(attemptId(attemptKey(o.contract, o.lane, n)))
    return e && e.lane !== o.lane ? e : undefined
  }
  let ordinal = o.ordinal ?? Math.max(0, ...mine.map(a => a.body.ordinal)) + 1
  const held = o.ordinal !== undefined ? foreign(ordinal) : undefined
  if (held) throw new ExpError('E_CONFLICT', `attempt #${ordinal} of ${o.contract} on lane ${o.lane} would be ${held.id}, and lane ${held.lane} holds that id with a record of its own: it is not this lane's attempt`, {data: {id: held.id, lane: held.lane}, hint: 'leave out --ordinal: the next ordinal whose id is free is taken'})
  while (foreign(ordinal)) ordinal++
  const key = attemptKey(o.contract, o.lane, ordinal)
  const id = attemptId(key)
  const have = ledger.get(id)
  let body: AttemptBody
  let contract: Contract
  if (have) {
    body = ledger.load<'attempt'>(have).body as AttemptBody
    contract = await contractAt(ws, body.base.commit, o.contract)
  } else {
    // a new attempt's folder cannot be a work tree yet: said before its record is written
    if (o.path && existsSync(path.join(path.resolve(o.path), '.git'))) throw new WorktreeError(path.resolve(o.path), 'it is already a git work tree: an attempt needs a folder of its own')
    contract = await contractAt(ws, main, o.contract)
    // what it cites must be there: a record is never rewritten, and a typo would be a dangling cite forever
    if (o.hypothesis !== undefined && ledger.get(o.hypothesis)?.kind !== 'hypothesis') throw new NotFoundError('hypothesis', o.hypothesis, 'list hypotheses with `exp hypotheses`; sync first if it was recorded in another clone')
    if (o.resumes !== undefined && ledger.get(o.resumes)?.kind !== 'attempt') throw new NotFoundError('attempt', o.resumes, 'list attempts with `exp attempt list`')
    const all = attemptsOf(ledger, o.contract)
    if (all.length >= contract.budget.max_attempts) throw new BudgetError(o.contract, `${all.length} of ${contract.budget.max_attempts} attempts made`)
    body = {
      contract: {name: contract.name, digest: contract.source.digest, path: contract.source.path, ...(contract.source.blob ? {blob: contract.source.blob} : {})},
      branch: attemptBranch(id),
      base: {commit: main, branch: o.mainRef.replace(/^refs\/heads\//, '')},
      ordinal,
      ...(o.hypothesis ? {hypothesis: o.hypothesis} : {}),
      ...(o.resumes ? {resumes: o.resumes} : {}),
      ...(o.proposer ? {proposer: o.proposer} : {}),
      ...(o.reason ? {reason: o.reason} : {}),
    }
    await store.append({kind: 'attempt', key, body, cites: [...(o.hypothesis ? [o.hypothesis] : []), ...(o.resumes ? [o.resumes] : [])]}, {lane: o.lane, now: o.now})
  }
  const dir = o.path ? path.resolve(o.path) : path.join(o.worktreeRoot, id)
  await ws.addWorktree(dir, {commit: body.base.commit, branch: body.branch})
  return {id, branch: body.branch, dir, base: body.base.commit, ordinal: body.ordinal, contract, created: !have}
}

function emptyFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory() && readdirSync(p).length === 0
  } catch {
    return false
  }
}

/** The nearest folder at or above `p` that is a git directory (HEAD, objects/ and refs/ in it), if any. */
function gitDirAbove(p: string): string | undefined {
  for (let dir = p; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'HEAD')) && existsSync(path.join(dir, 'objects')) && existsSync(path.join(dir, 'refs'))) return dir
    if (path.dirname(dir) === dir) return undefined
  }
}
