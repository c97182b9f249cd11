import {slotKey} from '../first-ids.js'

/**
 * Record ids to numbers (their place in a lane's tree), for a full read of a large lane: an
 * open-addressing table of numbers, keyed by a seeded hash of the id (slotKey), each hit
 * confirmed against the whole id. A Map of 100,000 id strings took ~0.1 s to fill and as
 * long again to ask (a bucket chased, a key compared, each time); this takes a few
 * milliseconds. Ids made to share a hash only make a probe longer: an answer is always the
 * id's own place or none.
 */
export class IdTable {
  private slots: Int32Array
  private mask: number
  private size = 0
  // each added id's place in the table before probing (its key), by n: a growth moves every
  // id without taking its digits apart again
  private keys = new Int32Array(1024)

  constructor(private readonly ids: readonly string[]) {
    this.slots = new Int32Array(1024).fill(-1)
    this.mask = 1023
  }

  /** Add `ids[n]` (the constructor's list, filled by the caller) under its id. */
  add(n: number): void {
    if ((this.size + 1) * 2 > this.slots.length) this.grow()
    this.size++
    if (n >= this.keys.length) {
      const keys = new Int32Array(Math.max(n + 1, this.keys.length * 2))
      keys.set(this.keys)
      this.keys = keys
    }
    this.keys[n] = slotKey(this.ids[n]!)
    this.put(n)
  }

  /**
   * The place of the id `s.slice(from)` (a string that ends with it: `kind/id`), or undefined.
   * `from` is where the id starts in `s`.
   */
  find(s: string, from: number): number | undefined {
    const h = slotKey(s, from)
    const len = s.length - from
    for (let i = h & this.mask; ; i = (i + 1) & this.mask) {
      const n = this.slots[i]!
      if (n < 0) return undefined
      const id = this.ids[n]!
      if (id.length === len && s.endsWith(id)) return n
    }
  }

  private put(n: number): void {
    for (let i = this.keys[n]! & this.mask; ; i = (i + 1) & this.mask) {
      if (this.slots[i]! < 0) {
        this.slots[i] = n
        return
      }
    }
  }

  private grow(): void {
    const old = this.slots
    this.slots = new Int32Array(old.length * 2).fill(-1)
    this.mask = this.slots.length - 1
    for (const n of old) if (n >= 0) this.put(n)
  }
}
