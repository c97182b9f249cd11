import {spawn, type ChildProcess} from 'node:child_process'
import {closeInheritedFds} from './fds.js'

/** What the episode loop hears from the child, in order of arrival. */
export type ChildEvent =
  | {kind: 'line'; line: string}
  | {kind: 'eof'}
  | {kind: 'overflow'; bytes: number}
  | {kind: 'exit'; code: number | null; signal: NodeJS.Signals | null}
  | {kind: 'spawn_error'; message: string}
  | {kind: 'abort'}
  | {kind: 'timeout'}

export interface ChildOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  maxLineBytes: number
  stderrBytes: number
}

// Process groups still running when exp itself exits: swept so no agent outlives us.
const live = new Set<number>()
let hooked = false
function track(pid: number): void {
  live.add(pid)
  if (hooked) return
  hooked = true
  process.once('exit', () => {
    for (const p of live) killGroup(p, 'SIGKILL')
  })
}

const GROUPS = process.platform !== 'win32'

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // A negative pid signals the whole group: the agent's own children die with it.
    process.kill(GROUPS ? -pid : pid, signal)
  } catch {
    // ESRCH: nothing left in the group
  }
}

/**
 * One agent process: stdout split into bounded lines, stderr kept as a bounded tail (for
 * diagnostics only, never parsed), every event queued for `next()`. The child leads its
 * own process group so `close()` can reap it and anything it started.
 */
export class AgentProcess {
  readonly child: ChildProcess
  private readonly queue: ChildEvent[] = []
  private wake: (() => void) | undefined
  private parts: Buffer[] = []
  private partBytes = 0
  private overflowed = false
  private stderr: Buffer = Buffer.alloc(0)
  private exitInfo: {code: number | null; signal: NodeJS.Signals | null} | undefined
  private readonly exited: Promise<void>

  constructor(program: string, args: readonly string[], private readonly opts: ChildOptions) {
    // (nothing this process inherited open reaches the agent or the evaluator: fds.ts)
    closeInheritedFds()
    this.child = spawn(program, args, {cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: GROUPS, windowsHide: true})
    if (this.child.pid !== undefined) track(this.child.pid)
    this.exited = new Promise(resolve => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = {code, signal}
        this.push({kind: 'exit', code, signal})
        resolve()
      })
      this.child.once('error', err => {
        // only spawn failures (ENOENT, EACCES) matter here, and they never emit 'exit'
        if (this.child.pid !== undefined) return
        this.exitInfo = {code: null, signal: null}
        this.push({kind: 'spawn_error', message: err.message})
        resolve()
      })
    })
    // EPIPE when the agent dies mid-write: the exit event tells the story, not this.
    this.child.stdin!.on('error', () => {})
    this.child.stdout!.on('data', (chunk: Buffer) => this.onStdout(chunk))
    this.child.stdout!.once('end', () => this.push({kind: 'eof'}))
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = Buffer.concat([this.stderr, chunk])
      if (this.stderr.length > opts.stderrBytes) this.stderr = this.stderr.subarray(this.stderr.length - opts.stderrBytes)
    })
  }

  get exitStatus(): {code: number | null; signal: NodeJS.Signals | null} | undefined {
    return this.exitInfo
  }

  /** The last bytes the agent wrote to stderr. */
  stderrTail(maxChars = 800): string {
    const s = this.stderr.toString('utf8')
    return s.length > maxChars ? `…${s.slice(s.length - maxChars)}` : s
  }

  send(message: unknown): void {
    const stdin = this.child.stdin!
    if (stdin.writable) stdin.write(`${JSON.stringify(message)}\n`)
  }

  /** Resolves with the next event, or `timeout` after `ms` (an Infinity wait never times out). */
  async next(ms: number): Promise<ChildEvent> {
    if (this.queue.length > 0) return this.queue.shift()!
    if (ms <= 0) return {kind: 'timeout'}
    return new Promise(resolve => {
      const timer = Number.isFinite(ms) ? setTimeout(() => {
        this.wake = undefined
        resolve({kind: 'timeout'})
      }, ms) : undefined
      this.wake = () => {
        if (timer) clearTimeout(timer)
        this.wake = undefined
        resolve(this.queue.shift()!)
      }
    })
  }

  /** Injects an event from outside (the abort signal). */
  push(ev: ChildEvent): void {
    this.queue.push(ev)
    this.wake?.()
  }

  /**
   * Ends the child for good: close stdin (a polite agent exits on EOF), wait `politeMs`,
   * SIGTERM the group, wait `graceMs`, SIGKILL; then sweep the group once more so no
   * grandchild survives. Always resolves after the child was reaped.
   */
  async close(politeMs: number, graceMs: number): Promise<void> {
    this.child.stdin!.end()
    const pid = this.child.pid
    if (pid === undefined) return
    if (!this.exitInfo && !(await this.waitExit(politeMs))) {
      killGroup(pid, 'SIGTERM')
      if (!(await this.waitExit(graceMs))) {
        killGroup(pid, 'SIGKILL')
        await this.exited
      }
    }
    killGroup(pid, 'SIGKILL')
    live.delete(pid)
    this.child.stdout!.destroy()
    this.child.stderr!.destroy()
  }

  /** True when the child exited within `ms`. */
  async waitExit(ms: number): Promise<boolean> {
    if (this.exitInfo) return true
    if (ms <= 0) return false
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<false>(resolve => {
      timer = setTimeout(() => resolve(false), ms)
    })
    const done = await Promise.race([this.exited.then(() => true as const), timedOut])
    clearTimeout(timer)
    return done
  }

  private onStdout(chunk: Buffer): void {
    if (this.overflowed) return // the stream is already condemned: ignore the rest
    let start = 0
    let nl: number
    while ((nl = chunk.indexOf(0x0a, start)) >= 0) {
      const piece = chunk.subarray(start, nl)
      // a line split over chunks is joined once, at its end (no quadratic re-copying)
      const raw = this.parts.length > 0 ? Buffer.concat([...this.parts, piece]) : piece
      this.parts = []
      this.partBytes = 0
      start = nl + 1
      if (raw.length > this.opts.maxLineBytes) return this.overflow(raw.length)
      const line = raw.toString('utf8').replace(/\r$/, '')
      if (line.trim().length > 0) this.push({kind: 'line', line})
    }
    if (start < chunk.length) {
      this.parts.push(chunk.subarray(start))
      this.partBytes += chunk.length - start
      if (this.partBytes > this.opts.maxLineBytes) this.overflow(this.partBytes)
    }
  }

  private overflow(bytes: number): void {
    this.overflowed = true
    this.parts = []
    this.push({kind: 'overflow', bytes})
  }
}
