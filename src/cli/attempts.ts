import path from 'node:path'
import {Flags} from '../vendor/oclif.js'
import type {GitRecordStore} from '../store/index.js'
import {GitWorkspace} from '../workspace/git.js'
import {makeRedactor} from '../redact/index.js'
import {laneOf} from './context.js'
import {mainRefOf} from './main-ref.js'
import {holdoutKeyFor} from './run-context.js'

/** Flags of the attempt commands. */
export const attemptFlags = {
  lane: Flags.string({description: 'lane to record on (default: EXP_LANE, git config exp.lane, user@host)'}),
  seed: Flags.integer({description: 'base seed of the repetitions (repetition r runs with seed + r)', default: 42}),
}

/** What the attempt commands need: the workspace, the lane, main, where work trees go, the key, a redactor. */
export async function attemptContext(store: GitRecordStore, cwd: string, flags: {lane?: string; seed?: number}) {
  const ws = new GitWorkspace(store)
  const key = await holdoutKeyFor(cwd)
  return {
    ws,
    lane: await laneOf(store, flags.lane),
    mainRef: await mainRefOf(store.repo, cwd),
    worktreeRoot: path.join(store.commonDir, 'exp', 'worktrees'),
    redact: makeRedactor({env: process.env}),
    seed: flags.seed ?? 42,
    ...(key ? {holdoutKey: key} : {}),
  }
}
