import {InvalidInputError} from '../../errors/index.js'
import {count} from './check.js'

/** One scenario's repeated trials: n attempts, c of them passed. */
export interface Trials {
  n: number
  c: number
}

function check(n: number, c: number, k: number): void {
  count('n', n)
  count('c', c)
  count('k', k)
  if (c > n) throw new InvalidInputError(`c (${c}) exceeds n (${n})`, {n, c})
  if (k < 1 || k > n) throw new InvalidInputError(`k must be between 1 and n (${n}), got ${k}`, {n, k})
}

/**
 * pass@k, the unbiased estimator of "at least one of k attempts passes":
 * 1 − C(n−c, k) / C(n, k), computed as a running product so large n never overflows.
 */
export function passAtK(n: number, c: number, k: number): number {
  check(n, c, k)
  if (n - c < k) return 1
  let allFail = 1
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i
  return 1 - allFail
}

/** pass^k, "all of k attempts pass" (τ-bench): C(c, k) / C(n, k). */
export function passHatK(n: number, c: number, k: number): number {
  check(n, c, k)
  if (c < k) return 0
  let all = 1
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i)
  return all
}

/** Either estimator averaged over scenarios (each scenario weighs the same). */
export function meanOver(scenarios: readonly Trials[], k: number, estimator: (n: number, c: number, k: number) => number): number {
  if (scenarios.length === 0) throw new InvalidInputError('no scenarios to average over')
  return scenarios.reduce((sum, s) => sum + estimator(s.n, s.c, k), 0) / scenarios.length
}

export const meanPassAtK = (scenarios: readonly Trials[], k: number): number => meanOver(scenarios, k, passAtK)
export const meanPassHatK = (scenarios: readonly Trials[], k: number): number => meanOver(scenarios, k, passHatK)
