/**
 * What must not outlive an interrupted exp: an evaluator's process group (it runs detached, so
 * Ctrl-C at the terminal does not reach it) and the folder its held-out data was unsealed
 * into. Each is registered while it exists; on SIGINT, SIGTERM or SIGHUP every registered
 * cleanup runs (synchronously) and exp exits as the signal would have it (128 + its number).
 * Without this a Ctrl-C during a held-out evaluation left the data in clear under /tmp and
 * the evaluator running. (A SIGKILL cannot be caught: `exp gc` removes what is left then.)
 */
const cleanups = new Set<() => void>()
let hooked = false

const SIGNALS: [NodeJS.Signals, number][] = [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
]

/** what is said on stderr when a person interrupts exp (SIGINT, SIGTERM: not a hang-up, which has no one to read it) */
let note: string | undefined

function hook(): void {
  if (hooked) return
  hooked = true
  for (const [signal, n] of SIGNALS) {
    process.on(signal, () => {
      for (const c of [...cleanups]) {
        try {
          c()
        } catch {
          // the others still run
        }
      }
      if (note && signal !== 'SIGHUP') process.stderr.write(`\n${note}\n`)
      process.exit(128 + n)
    })
  }
}

/** Register `cleanup` until the returned function is called. */
export function onInterrupt(cleanup: () => void): () => void {
  hook()
  cleanups.add(cleanup)
  return () => void cleanups.delete(cleanup)
}

/** Say `text` when exp is interrupted (every command: an interrupted one said nothing, and exited 130). */
export function noteOnInterrupt(text: string): void {
  note = text
  hook()
}
