/**
 * The miner's work as a generator that yields between units of work (a run's candidates, a
 * rule judged on every run): pure and synchronous when drained at once (`drain`, what the
 * tests and `mineEvidence` do), or drained a slice of time at a time (`drainAsync`), giving the
 * event loop a turn between slices. `exp mine` and the loop's mining step do the latter: a
 * SIGTERM or a Ctrl-C is handled at the next turn (src/evals/evaluator/interrupt.ts: exit
 * 128 + the signal's number, before anything is written), where a synchronous miner kept the
 * handler waiting until it was done (minutes, on a lane's fabricated traces: docs/trust.md).
 */
export type Steps<T> = Generator<void, T, void>

/** Run the steps to the end, synchronously. */
export function drain<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next()
    if (r.done) return r.value
  }
}

/** How long the miner works before it gives the event loop a turn (ms). */
export const SLICE_MS = 20

/**
 * Run the steps to the end, yielding to the event loop every `sliceMs` of work (setImmediate:
 * signal handlers, timers and I/O run in between). With `signal`, an abort stops the work at
 * the next turn with the signal's reason.
 */
export async function drainAsync<T>(steps: Steps<T>, o: {sliceMs?: number; signal?: AbortSignal} = {}): Promise<T> {
  const slice = o.sliceMs ?? SLICE_MS
  let since = performance.now()
  for (;;) {
    const r = steps.next()
    if (r.done) return r.value
    if (performance.now() - since < slice) continue
    await new Promise(resolve => setImmediate(resolve))
    o.signal?.throwIfAborted()
    since = performance.now()
  }
}
