/**
 * Which entries of a list are the first with their id: what the ledger's deduplication
 * needs, without a Map of every id. A Map of 100,000 ids took ~100 ms to build in a new
 * process (its growth and the hashing of every id), most of a warm `exp ledger --json` that
 * never asks for an id; an open-addressing table of indexes into the list does the same in a
 * few milliseconds, and the ledger builds its Map only when an id is first looked up.
 */
export function firstOfEachId(ids: (i: number) => string, n: number, keys: (i: number) => number = i => slotKey(ids(i))): Uint8Array {
  const first = new Uint8Array(n)
  // a power of two at least twice n: probes stay short
  let size = 16
  while (size < n * 2) size *= 2
  const mask = size - 1
  const slots = new Int32Array(size)
  // each entry's whole key: ids are compared (and made, for entries that hash an id where it
  // lies: `keys`) only when two keys are the same
  const keyOf = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    const k = (keyOf[i] = keys(i))
    let h = k & mask
    let id: string | undefined
    for (;;) {
      const at = slots[h]!
      if (at === 0) {
        slots[h] = i + 1
        first[i] = 1
        break
      }
      if (keyOf[at - 1] === k && ids(at - 1) === (id ??= ids(i))) break
      h = (h + 1) & mask
    }
  }
  return first
}

/**
 * Where a string goes in a table (before the table's mask): FNV-1a of the whole string (of
 * `s` from `from` to `to`), mixed with this process's seed. The seed is what keeps probes short when
 * ids are chosen: a lane's owner can grind keys until their records' ids share the few bits
 * a table of 100,000 looks at (~2^18 tries an id), and 30,000 ids that shared the eight
 * digits the table used to look at made each read of their ledger quadratic (30 s). With
 * the seed, only ids whose hashes are the same 32 bits share a start (~2^32 tries an id).
 * Every character counts: ids made by hand (a counter in the last digits, a constant
 * tail) spread too. (~13 ms for 100,000 ids: a third more than eight of their digits.)
 */
export function slotKey(s: string, from = 0, to = s.length): number {
  let h = 0x811c9dc5 | 0
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  // murmur3's finalizer: every bit of the hash, and of the seed, moves the low bits the mask keeps
  h ^= SEED
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h & 0x3fffffff
}

/** the seed of slotKey: where ids land in a table is not known outside this process */
const SEED = (Math.random() * 0x1_0000_0000) | 0
