import type {Writable} from 'node:stream'

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

let installed = false

/**
 * Swallow the asynchronous EPIPE of stdout and stderr (oclif swallows stdout's only; `exp evolve
 * 2>&1 | head` closes both): a later write to either is then dropped instead of crashing.
 */
export function quietOnClosedOutput(): void {
  if (installed) return
  installed = true
  for (const out of [process.stdout, process.stderr]) {
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err
      markClosed(out)
    })
  }
}
