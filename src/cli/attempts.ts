import path from 'node:path'
import {Flags} from '../vendor/oclif.js'
import type {GitRecordStore} from '../store/index.js'
import {noteUncommittedJudges} from './uncommitted.js'
import {GitWorkspace} from '../workspace/git.js'
import {makeRedactor, withKey} from '../redact/index.js'
import {passedSecrets} from '../agents/command/sandbox.js'
import {configOf, laneOf} from './context.js'
import {mainRefOf} from './main-ref.js'
import {holdoutKeyFor, repositoryHidden} from './run-context.js'
import {contractAt} from '../contracts/load.js'
import {UsageError} from '../errors/index.js'
import type {Workspace} from '../workspace/port.js'
import {claimTtl} from './budgets.js'

/** Flags of the attempt commands. */
export const attemptFlags = {
  lane: Flags.string({description: 'lane to record on (default: EXP_LANE, git config exp.lane, user@host)'}),
  seed: Flags.integer({description: 'base seed of the repetitions (repetition r runs with seed + r)', default: 42, min: 0}),
}

/** What the attempt commands need: the workspace, the lane, main, where work trees go, the key, a redactor. */
export async function attemptContext(store: GitRecordStore, cwd: string, flags: {lane?: string; seed?: number; agent?: string}, note?: (line: string) => void) {
  const ws = new GitWorkspace(store)
  const key = await holdoutKeyFor(cwd)
  if (note) await noteUncommittedJudges(ws, store.repo.workDir, note)
  return {
    ws,
    lane: await laneOf(store, flags.lane),
    mainRef: await mainRefOf(store.repo, cwd),
    worktreeRoot: path.join(store.commonDir, 'exp', 'worktrees'),
    hide: repositoryHidden(store),
    // (the key too: a research agent's words reach records and commit messages — docs/trust.md;
    // and the values a `command:` agent is handed with --env, whatever their names: GH_PAT)
    redact: withKey(makeRedactor({env: process.env, secrets: flags.agent ? passedSecrets(flags.agent) : []}), key),
    seed: flags.seed ?? 42,
    claimTtlSeconds: claimTtl(await configOf(store)),
    ...(key ? {holdoutKey: key} : {}),
  }
}

/**
 * Checked before an attempt is opened (a branch, a record): the contract on main exists and is
 * judged by a command evaluator, the only kind an attempt runs; a contract of the world
 * evaluator (the skills one `exp init` writes) is evolved with `exp evolve` and judged by `exp gate`.
 */
export async function checkAttemptContract(ws: Workspace, mainRef: string, name: string): Promise<void> {
  const tip = await ws.readRef(mainRef)
  if (!tip) return
  const contract = await contractAt(ws, tip, name)
  if (contract.dev_eval.evaluator !== 'command') throw new UsageError(`contract ${name} is judged by the ${contract.dev_eval.evaluator} evaluator: an attempt needs a contract with a command evaluator (dev_eval.command)`, `evolve skills with \`exp evolve\` and judge pull requests with \`exp gate\`; docs/contracts.md describes command evaluators`)
}
