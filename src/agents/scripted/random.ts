/**
 * Seeded randomness for the agent's habits. Each habit draws from its own stream, keyed
 * by (episode seed, habit name): adding a rule that replaces one habit never shifts the
 * draws of the others, so a single rule changes only the decisions it is about.
 */

/** FNV-1a, 32-bit: a stable hash of a string. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** One step of mulberry32 from a 32-bit state: a uniform number in [0, 1). */
export function mulberry32(a: number): number {
  let t = (a + 0x6d2b79f5) | 0
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

export class Draws {
  private readonly memo = new Map<string, number>()

  constructor(private readonly seed: number) {}

  /** The episode's fixed draw for a habit: the same name gives the same number all episode long. */
  u(name: string): number {
    let v = this.memo.get(name)
    if (v === undefined) {
      v = mulberry32((this.seed ^ fnv1a(name)) >>> 0)
      this.memo.set(name, v)
    }
    return v
  }

  /** Pick one option by weight with the habit's draw. */
  pick<T extends string>(name: string, weights: Readonly<Record<T, number>>): T {
    const entries = Object.entries(weights) as [T, number][]
    const total = entries.reduce((s, [, w]) => s + w, 0)
    let x = this.u(name) * total
    for (const [k, w] of entries) {
      if ((x -= w) < 0) return k
    }
    return entries[entries.length - 1]![0]
  }
}
