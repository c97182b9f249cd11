import {InvalidInputError} from '../../errors/index.js'
import {count} from './check.js'

export interface McNemarResult {
  /** pairs where A passed and B failed */
  b: number
  /** pairs where A failed and B passed */
  c: number
  /** two-sided exact p-value */
  pValue: number
}

/**
 * Exact McNemar test from the discordant counts: under "A and B are equally good" each
 * discordant pair goes either way with probability ½, so the p-value is the two-sided
 * exact binomial tail, 2·P(X ≤ min(b, c)) for X ~ Bin(b + c, ½), capped at 1. With no
 * discordant pairs there is no evidence of a difference: p = 1.
 */
export function mcnemarExact(b: number, c: number): McNemarResult {
  count('b', b)
  count('c', c)
  const n = b + c
  if (n === 0) return {b, c, pValue: 1}
  // terms in log space: C(n, i) / 2^n underflows long before n reaches the thousands
  const ln2n = n * Math.LN2
  let lnChoose = 0
  let tail = 0
  for (let i = 0; i <= Math.min(b, c); i++) {
    tail += Math.exp(lnChoose - ln2n)
    lnChoose += Math.log(n - i) - Math.log(i + 1)
  }
  return {b, c, pValue: Math.min(1, 2 * tail)}
}

/** The same test from paired outcomes: a[i] and b[i] are the results of A and B on scenario i. */
export function mcnemarPaired(a: readonly boolean[], b: readonly boolean[]): McNemarResult {
  if (a.length !== b.length) throw new InvalidInputError(`paired outcomes differ in length (${a.length} vs ${b.length})`)
  let onlyA = 0
  let onlyB = 0
  for (let i = 0; i < a.length; i++) {
    if (a[i] && !b[i]) onlyA++
    else if (!a[i] && b[i]) onlyB++
  }
  return mcnemarExact(onlyA, onlyB)
}

/**
 * One-sided exact McNemar test (a sign test on the discordant pairs) of "B is better than
 * A": P(X ≥ wins) for X ~ Bin(wins + losses, ½), where wins are the pairs only B passed and
 * losses the pairs only A passed. The promotion policy asks a directional question (is the
 * candidate better?), so its `mcnemar_p_max` is this p. No discordant pair: p = 1.
 */
export function mcnemarOneSided(wins: number, losses: number): number {
  count('wins', wins)
  count('losses', losses)
  const n = wins + losses
  if (n === 0 || wins === 0) return 1
  const ln2n = n * Math.LN2
  // P(X >= wins) = P(X <= losses) by symmetry; summed from the small tail, in log space
  let lnChoose = 0
  let tail = 0
  for (let i = 0; i <= losses; i++) {
    tail += Math.exp(lnChoose - ln2n)
    lnChoose += Math.log(n - i) - Math.log(i + 1)
  }
  return Math.min(1, tail)
}
