import {InvalidInputError} from '../../errors/index.js'
import {count} from './check.js'
import {zFor} from './normal.js'

export interface Interval {
  /** the point estimate (successes / n; 0 when n is 0) */
  estimate: number
  low: number
  high: number
}

export interface WilsonOptions {
  /** critical value; wins over `confidence` */
  z?: number
  /** two-sided confidence level (default 0.95) */
  confidence?: number
}

/**
 * Wilson score interval of a success rate. Unlike the normal approximation it stays in
 * [0, 1] and is sensible at 0/n and n/n, which small evaluation splits hit all the time.
 * With no trials nothing is known: the interval is [0, 1].
 */
export function wilson(successes: number, n: number, options: WilsonOptions = {}): Interval {
  count('successes', successes)
  count('n', n)
  if (successes > n) throw new InvalidInputError(`successes (${successes}) exceed n (${n})`, {successes, n})
  const z = options.z ?? zFor(options.confidence ?? 0.95)
  if (!Number.isFinite(z) || z < 0) throw new InvalidInputError(`z must be a non-negative number, got ${z}`, {z})
  if (n === 0) return {estimate: 0, low: 0, high: 1}
  const p = successes / n
  const z2 = z * z
  const denom = 1 + z2 / n
  const center = (p + z2 / (2 * n)) / denom
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom
  return {
    estimate: p,
    // exact ends where the algebra gives them, rather than 0.9999999999999999
    low: successes === 0 ? 0 : Math.max(0, center - half),
    high: successes === n ? 1 : Math.min(1, center + half),
  }
}
