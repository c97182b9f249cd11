import {InvalidInputError} from '../../errors/index.js'
import {count, probability} from './check.js'
import type {Random} from './prng.js'

export interface BootstrapOptions {
  /** the caller's seeded stream (see seededRandom) */
  random: Random
  /** number of resamples (default 10 000) */
  resamples?: number
  /** two-sided confidence level (default 0.95) */
  level?: number
}

export interface DiffInterval {
  /** mean(b) − mean(a) on the scenarios as given */
  estimate: number
  low: number
  high: number
  resamples: number
  level: number
}

/**
 * Paired bootstrap CI of the difference in success rate, B minus A. Scenarios are
 * resampled with replacement and both configurations keep their pairing, so scenario
 * difficulty cancels out. Values are per-scenario successes (true/false) or rates in [0, 1]
 * (when a scenario ran several trials). Percentile interval, linear interpolation.
 */
export function pairedBootstrapDiff(a: readonly (number | boolean)[], b: readonly (number | boolean)[], options: BootstrapOptions): DiffInterval {
  const resamples = options.resamples ?? 10_000
  const level = options.level ?? 0.95
  count('resamples', resamples)
  if (resamples < 1) throw new InvalidInputError('resamples must be at least 1')
  probability('level', level)
  if (a.length !== b.length) throw new InvalidInputError(`paired samples differ in length (${a.length} vs ${b.length})`)
  const n = a.length
  if (n === 0) throw new InvalidInputError('no scenarios to resample')
  const diff = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const x = Number(a[i])
    const y = Number(b[i])
    if (!(x >= 0 && x <= 1 && y >= 0 && y <= 1)) throw new InvalidInputError(`scenario ${i}: values must be booleans or rates in [0, 1]`, {index: i})
    diff[i] = y - x
  }
  const means = new Float64Array(resamples)
  for (let r = 0; r < resamples; r++) {
    let sum = 0
    for (let i = 0; i < n; i++) sum += diff[Math.floor(options.random() * n)]!
    means[r] = sum / n
  }
  means.sort()
  const alpha = (1 - level) / 2
  return {estimate: diff.reduce((s, d) => s + d, 0) / n, low: quantile(means, alpha), high: quantile(means, 1 - alpha), resamples, level}
}

/** Quantile of sorted values with linear interpolation between order statistics (R type 7). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q
  const lo = Math.floor(h)
  const hi = Math.min(lo + 1, sorted.length - 1)
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!)
}
