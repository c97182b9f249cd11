import {InvalidInputError} from '../../errors/index.js'

/** Arithmetic mean; an empty list has none (the caller decides what no data means). */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) throw new InvalidInputError('mean of an empty list')
  return xs.reduce((s, x) => s + x, 0) / xs.length
}

/** The share of true values: a success rate. */
export function successRate(outcomes: readonly boolean[]): number {
  return mean(outcomes.map(Number))
}

/**
 * Per-dimension mean of score vectors (e.g. {success, constraints, efficiency}). All
 * vectors must have the same dimensions: a missing one is a grader mismatch, not a zero.
 */
export function meanScoreVector(vectors: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  if (vectors.length === 0) throw new InvalidInputError('mean of no score vectors')
  const keys = Object.keys(vectors[0]!).sort()
  const out: Record<string, number> = {}
  for (const k of keys) out[k] = 0
  vectors.forEach((v, i) => {
    const ks = Object.keys(v).sort()
    if (ks.length !== keys.length || ks.some((k, j) => k !== keys[j])) throw new InvalidInputError(`score vector ${i} has dimensions [${ks.join(', ')}], expected [${keys.join(', ')}]`, {index: i})
    for (const k of keys) out[k]! += v[k]!
  })
  for (const k of keys) out[k] = out[k]! / vectors.length
  return out
}

/**
 * `x` to six decimals, as records and reports show numbers. A number too large to scale
 * (1e303 * 1e6 is Infinity) is returned as it is: it has no decimals to round, and rounding
 * made a finite metric Infinity (null in JSON).
 */
export function round6(x: number): number {
  const scaled = x * 1e6
  return Number.isFinite(scaled) ? Math.round(scaled) / 1e6 : x
}
