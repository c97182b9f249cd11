import {spawn} from 'node:child_process'
import {onInterrupt} from './interrupt.js'
import {closeInheritedFds} from '../../agents/command/fds.js'

/** One evaluator process run to its end or its timeout, with bounded output tails. */
export interface ProcessRun {
  exit_code: number | null
  signal: string | null
  timed_out: boolean
  duration_ms: number
  stdout: string
  stderr: string
  /** the program could not be started */
  spawn_error?: string
}

const GROUPS = process.platform !== 'win32'
/** setTimeout fires at once for a delay beyond 2^31 - 1 ms (about 24.8 days): longer timeouts wait that long. */
const MAX_TIMER_MS = 2 ** 31 - 1

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(GROUPS ? -pid : pid, signal)
  } catch {
    // nothing left in the group
  }
}

/**
 * Run `program args` in `cwd` with exactly `env`, as the leader of its own process group:
 * at the timeout the whole group gets SIGTERM, then SIGKILL after `graceMs`, so nothing the
 * command started outlives it. Output is kept as tails of at most `tailBytes` each.
 */
export function runProcess(program: string, args: readonly string[], o: {cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; graceMs?: number; tailBytes?: number}): Promise<ProcessRun> {
  const cap = o.tailBytes ?? 64 * 1024
  const t0 = performance.now()
  return new Promise(resolve => {
    // (nothing this process inherited open reaches the agent or the evaluator: fds.ts)
    closeInheritedFds()
    const child = spawn(program, args, {cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: GROUPS})
    // (detached, the group gets no Ctrl-C from the terminal: exp's interrupt kills it)
    const forget = child.pid !== undefined ? onInterrupt(() => killGroup(child.pid!, 'SIGKILL')) : () => undefined
    let out = Buffer.alloc(0)
    let err = Buffer.alloc(0)
    const tail = (b: Buffer, d: Buffer) => {
      const x = Buffer.concat([b, d])
      return x.length > cap ? x.subarray(x.length - cap) : x
    }
    child.stdout.on('data', (d: Buffer) => (out = tail(out, d)))
    child.stderr.on('data', (d: Buffer) => (err = tail(err, d)))
    let timedOut = false
    let done = false
    const timer = setTimeout(() => {
      timedOut = true
      if (child.pid !== undefined) {
        killGroup(child.pid, 'SIGTERM')
        setTimeout(() => child.pid !== undefined && killGroup(child.pid, 'SIGKILL'), o.graceMs ?? 2000).unref()
      }
    }, Math.min(o.timeoutMs, MAX_TIMER_MS))
    const finish = (r: Omit<ProcessRun, 'duration_ms' | 'stdout' | 'stderr' | 'timed_out'>) => {
      if (done) return
      done = true
      forget()
      clearTimeout(timer)
      // the group may have children left: they die with the command
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL')
      resolve({...r, timed_out: timedOut, duration_ms: Math.round(performance.now() - t0), stdout: out.toString('utf8'), stderr: err.toString('utf8')})
    }
    child.on('error', e => finish({exit_code: null, signal: null, spawn_error: e.message}))
    // the command's end is its leader's exit: a child it left behind holding stdout open would
    // otherwise keep the run going to its timeout. The group is killed, then the pipes drain.
    child.on('exit', (code, signal) => {
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL')
      const end = () => finish({exit_code: code, signal})
      // a process that left the group (setsid) may still hold the pipes: stop reading after a grace
      const drain = setTimeout(() => {
        child.stdout.destroy()
        child.stderr.destroy()
        end()
      }, o.graceMs ?? 2000)
      child.once('close', () => {
        clearTimeout(drain)
        end()
      })
    })
  })
}
