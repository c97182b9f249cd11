import v8 from 'node:v8'

/**
 * V8's young generation held at its size while a read builds what lives as long as the
 * command (store/git/store.ts: `ledger()`).
 *
 * A warm `exp ledger --json` of 100,000 records makes ~12 MB of index entries and keeps every
 * one: each survives the young generation's scavenges and is promoted. When most of it
 * survives, V8 doubles the young generation (up to two 16 MiB semi-spaces), and each page of
 * that growth is a fresh page the kernel faults in (~11 µs a 4 KiB page on the bench VM):
 * ~7,000 faults, ~70 ms of a ~0.95 s read, for room that only ever holds survivors on their
 * way to the old generation. Its growth factor is held at 1 while the ledger is built and
 * put back after (measured 2026-12-07: warm 0.955 → 0.885 s, page faults 26,800 → 20,200,
 * medians of 8, interleaved; a cold read and `exp run` unchanged). Held for the whole
 * process instead, `exp run --repeat 10`, whose garbage dies young, was ~10% slower.
 *
 * V8 reads the factor each time it grows the space, so the flag takes effect when set at
 * run time. The flag's value is also part of the hash V8 checks a code cache against: a
 * bundle compiled while it is held would refuse its cache (src/vendor/load.ts), and one
 * compiled after it is put back accepts it again. A factor given on node's command line is
 * the user's: left alone (node refuses it in NODE_OPTIONS). V8 versions that clamp the factor at 2 (newer
 * than node 20's) make this a no-op.
 */
const FLAG = '--semi-space-growth-factor'
/** V8's default (flag-definitions.h) */
const DEFAULT = 2
const setByUser = process.execArgv.some(a => /^--semi[-_]space[-_]growth[-_]factor(=|$)/.test(a))

let depth = 0

/** Run `fn` with the young generation held at its size; nested and concurrent calls share one hold. */
export async function holdingYoungGeneration<T>(fn: () => Promise<T>): Promise<T> {
  if (setByUser) return fn()
  if (depth++ === 0) v8.setFlagsFromString(`${FLAG}=1`)
  try {
    return await fn()
  } finally {
    if (--depth === 0) v8.setFlagsFromString(`${FLAG}=${DEFAULT}`)
  }
}
