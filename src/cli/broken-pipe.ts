import type {Writable} from 'node:stream'
import {ExpError} from '../errors/index.js'
import {errnoWords} from '../errors/errno.js'
// (report-error.ts writes through writeStdout below: each uses the other only when called)
import {reportExpError} from './report-error.js'

/**
 * A reader that goes away early (`exp ledger --json | head -c 100`) closes the pipe exp writes
 * to. git dies of SIGPIPE there, silently; Node ignores SIGPIPE, so the write fails with EPIPE
 * instead: synchronously from writev(2) (src/cli/json-stream.ts), or later as an 'error' event
 * on the stream. Either way the command ends quietly with status 0: the reader has what it
 * wanted, and the work already done (records appended, files written) stays done.
 */
const closed = new WeakSet<object>()

/** EPIPE (or a write after the stream was torn down) on one of the process's own outputs. */
export function isClosedOutput(err: unknown): boolean {
  const code = (err as {code?: unknown} | undefined)?.code
  if (code !== 'EPIPE' && code !== 'ERR_STREAM_DESTROYED') return false
  // an EPIPE from a pipe to a child process (an agent's stdin) is a real failure: only the
  // ones after stdout or stderr was seen closed are the reader going away
  return closed.has(process.stdout) || closed.has(process.stderr)
}

/** Record that `out` lost its reader (the writer saw EPIPE on it). */
export function markClosed(out: Writable): void {
  closed.add(out)
}

/**
 * Standard output that cannot be written for good (`exp ledger --json > out.json` on a full
 * disk: ENOSPC; an I/O error) is the user's to fix, not a bug: an E_WRITE error on stderr
 * naming standard output, and nothing more written to stdout (not even the JSON error).
 * A write to a file stdout fails synchronously (the error reaches the command's catch); to a
 * pipe or a terminal, as an 'error' event (reported from the listener below).
 */
export class OutputWriteError extends ExpError {
  constructor(cause: NodeJS.ErrnoException) {
    const code = typeof cause.code === 'string' ? cause.code : 'EIO'
    const why = errnoWords(code) ?? cause.message
    super('E_WRITE', `cannot write the output to standard output: ${why} (${code})`, {data: {errno: code}, hint: 'make room on the device the output goes to, or send it elsewhere; what the command recorded stays recorded', cause})
  }
}

let stdoutFailure: OutputWriteError | undefined

/** Whether a write to stdout failed for good in this process (nothing more goes there). */
export function stdoutFailed(): boolean {
  return stdoutFailure !== undefined
}

/**
 * The error a failed write to stdout becomes: undefined for the reader going away (EPIPE,
 * above) and for a full pipe (EAGAIN: the writer waits), else an OutputWriteError, and stdout
 * is written no more.
 */
export function outputFailure(err: unknown): OutputWriteError | undefined {
  if (err instanceof OutputWriteError) return err
  const code = (err as {code?: unknown} | undefined)?.code
  if (typeof code !== 'string' || code === 'EPIPE' || code === 'EAGAIN' || !code.startsWith('E') || code.startsWith('ERR_')) return undefined
  stdoutFailure ??= new OutputWriteError(err as NodeJS.ErrnoException)
  return stdoutFailure
}

/**
 * Write to stdout (text, or a function that does), a failure for good becoming an
 * OutputWriteError (thrown; with `quiet`, dropped: the last words of an error report).
 */
export function writeStdout(what: string | Uint8Array | (() => void), opts: {quiet?: boolean} = {}): void {
  if (stdoutFailed()) return
  try {
    if (typeof what === 'function') what()
    else process.stdout.write(what)
  } catch (e) {
    const failure = outputFailure(e)
    if (opts.quiet && (failure || isClosedOutput(e))) return
    throw failure ?? e
  }
}

let installed = false

/**
 * Swallow the asynchronous EPIPE of stdout and stderr (`exp evolve 2>&1 | head` closes both): a
 * later write to either is then dropped instead of crashing; any other error of stdout is
 * reported once as an OutputWriteError, with status 1. oclif's own listener on stdout, which
 * throws every error but EPIPE (an uncaught exception that printed a line of its minified
 * bundle), is replaced.
 */
export function quietOnClosedOutput(): void {
  if (installed) return
  installed = true
  process.stdout.removeAllListeners('error')
  for (const out of [process.stdout, process.stderr]) {
    out.on('error', (err: NodeJS.ErrnoException) => {
      // (a stream whose reader went away errs again on each later write: all part of the EPIPE)
      if (err.code === 'EPIPE' || closed.has(out)) return markClosed(out)
      if (out !== process.stdout) return markClosed(out)
      const first = !stdoutFailed()
      const failure = outputFailure(err) ?? (stdoutFailure ??= new OutputWriteError(err))
      // (after an error already reported, a write that fails too adds nothing to say)
      if (first && !process.exitCode) reportExpError(failure, {json: false, debug: false})
    })
  }
}
