import {spawn} from 'node:child_process'
import {accessSync, constants as fsConstants} from 'node:fs'
import path from 'node:path'
import {gitEnv} from './env.js'

/**
 * The git binary: whether there is one, and one run of it to completion. Every module that
 * runs git plumbing (the record store, the workspace, research setup, seal) goes through
 * this seam.
 */
let gitAvailable: boolean | undefined

/** Is a usable `git` binary on PATH? (EXP_NO_NATIVE_GIT=1 forces the pure isomorphic-git paths.) */
export async function hasNativeGit(): Promise<boolean> {
  if (process.env.EXP_NO_NATIVE_GIT === '1') return false
  if (gitAvailable !== undefined) return gitAvailable
  // look the binary up on PATH instead of spawning `git --version` (saves a process start per command)
  gitAvailable = (process.env.PATH ?? '').split(path.delimiter).some(dir => {
    try {
      accessSync(path.join(dir, 'git'), fsConstants.X_OK)
      return true
    } catch {
      return false
    }
  })
  return gitAvailable
}

/**
 * Settings for the git commands exp runs on its own behalf in a work tree (adding, committing
 * and removing attempt checkouts, following a promotion in the user's work tree): no hooks
 * and no fsmonitor command. A repository whose core.hooksPath is relative (husky sets
 * `.husky/_`) would otherwise run as hooks whatever files an attempt or its agent put at that
 * path — post-commit, post-index-change and reference-transaction ran even with --no-verify —
 * outside every sandbox. Commits exp makes for the user (`exp init --example`) keep the
 * user's hooks.
 */
export const NO_HOOKS: readonly string[] = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false']

export interface RunResult {
  stdout: Buffer
  stderr: string
  code: number
  /** git was stopped at opts.timeoutMs (code is then 124, as timeout(1) gives) */
  timedOut?: boolean
}

/** the timed gits of their own process groups still running: each stopped if this process exits first (one 'exit' listener for all) */
const groups = new Set<() => void>()
let exitHooked = false

/**
 * Run git to completion (async: never blocks the event loop, see TOOLCHAIN.md footgun 5).
 * With `timeoutMs`, git is stopped then (SIGTERM, which lets it remove its lock files; SIGKILL
 * two seconds later) and the run ends as soon as git exits. Away from a terminal, a timed git
 * runs in a process group of its own, and the signals go to the group: what git started (an
 * ssh of core.sshCommand, a remote helper) stops with it instead of waiting on its connection;
 * the group is also stopped when this process exits first.
 */
export function runGit(args: string[], opts: {cwd: string; input?: string | Buffer; env?: NodeJS.ProcessEnv; allowFail?: boolean; timeoutMs?: number}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const timed = opts.timeoutMs !== undefined && Number.isFinite(opts.timeoutMs)
    // (not at a terminal: a session of its own has none, and git or ssh could not ask there for
    // a password or a passphrase; at one, Ctrl-C stops the whole group anyway)
    const group = timed && process.platform !== 'win32' && !(process.stdin.isTTY && process.stderr.isTTY)
    const child = spawn('git', args, {cwd: opts.cwd, env: gitEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'], detached: group})
    const out: Buffer[] = []
    const err: Buffer[] = []
    let timedOut = false
    let settled = false
    const timers: NodeJS.Timeout[] = []
    const stop = (signal: NodeJS.Signals) => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, signal)
        else child.kill(signal)
      } catch {
        child.kill(signal)
      }
    }
    const onExit = () => stop('SIGTERM')
    if (group) groups.add(onExit)
    if (group && !exitHooked) {
      exitHooked = true
      process.once('exit', () => {
        for (const f of groups) f()
      })
    }
    if (timed) {
      timers.push(setTimeout(() => {
        timedOut = true
        stop('SIGTERM')
        timers.push(setTimeout(() => stop('SIGKILL'), 2000))
      }, Math.max(0, opts.timeoutMs!)))
    }
    const finish = (code: number | null) => {
      if (settled) return
      settled = true
      groups.delete(onExit)
      for (const t of timers) clearTimeout(t)
      const res: RunResult = {stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code: timedOut ? 124 : (code ?? 1), ...(timedOut ? {timedOut} : {})}
      if (res.code !== 0 && !opts.allowFail) reject(new Error(`git ${args.join(' ')} ${timedOut ? `did not finish within ${opts.timeoutMs} ms` : `failed (${res.code})`}: ${res.stderr.trim()}`))
      else resolve(res)
    }
    child.stdout.on('data', d => out.push(d))
    child.stderr.on('data', d => err.push(d))
    child.on('error', e => {
      if (settled) return
      settled = true
      groups.delete(onExit)
      for (const t of timers) clearTimeout(t)
      reject(e)
    })
    child.on('close', finish)
    child.on('exit', code => {
      if (!timedOut) return
      child.stdout.destroy()
      child.stderr.destroy()
      finish(code)
    })
    child.stdin.on('error', () => undefined) // (git stopped before it read its input)
    if (opts.input !== undefined) child.stdin.end(opts.input)
    else child.stdin.end()
  })
}
