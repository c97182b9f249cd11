/**
 * A seeded stream of uniform numbers in [0, 1) (mulberry32): statistics that resample take
 * their randomness from the caller, and the same seed gives the same interval on any machine.
 */
export type Random = () => number

export function seededRandom(seed: number): Random {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
