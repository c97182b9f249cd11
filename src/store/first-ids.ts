/**
 * Which entries of a list are the first with their id: what the ledger's deduplication
 * needs, without a Map of every id. A Map of 100,000 ids took ~100 ms to build in a new
 * process (its growth and the hashing of every id), most of a warm `exp ledger --json` that
 * never asks for an id; an open-addressing table of indexes into the list does the same in a
 * few milliseconds, and the ledger builds its Map only when an id is first looked up.
 */
export function firstOfEachId(ids: (i: number) => string, n: number): Uint8Array {
  const first = new Uint8Array(n)
  // a power of two at least twice n: probes stay short
  let size = 16
  while (size < n * 2) size *= 2
  const mask = size - 1
  const slots = new Int32Array(size)
  for (let i = 0; i < n; i++) {
    const id = ids(i)
    let h = hash(id) & mask
    for (;;) {
      const at = slots[h]!
      if (at === 0) {
        slots[h] = i + 1
        first[i] = 1
        break
      }
      if (ids(at - 1) === id) break
      h = (h + 1) & mask
    }
  }
  return first
}

/**
 * An id's eight hex digits after its kind's prefix (`xx-`, idKey): its digest part, spread
 * uniformly, read in a third of the time a hash of all 27 characters takes. Anything else
 * (a string that is not an id, or an id an attacker chose: a probe gets longer, the answer
 * stays right) is hashed whole.
 */
function hash(s: string): number {
  const key = s.length === 27 ? idKey(s, 3) : -1
  return key < 0 ? fnv(s) : key & 0x3fffffff
}

/** Eight lower-case hex digits of `s` from `at` as a number (-1 when they are not that): where an id's digest part places it in a table. */
export function idKey(s: string, at: number): number {
  if (s.length < at + 8) return -1
  let h = 0
  for (let i = at; i < at + 8; i++) {
    const c = s.charCodeAt(i)
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1
    if (d < 0) return -1
    h = (h << 4) | d
  }
  return h >>> 0
}

/** FNV-1a over the UTF-16 units of a string (as a small integer: no heap number before the loop is optimized) */
function fnv(s: string): number {
  let h = 0x811c9dc5 | 0
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h & 0x3fffffff
}
