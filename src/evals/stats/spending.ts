import {InvalidInputError} from '../../errors/index.js'
import {count, probability} from './check.js'
import {normalQuantile} from './normal.js'

/**
 * Alpha spending (Lan & DeMets) for a comparison looked at after every pass over the
 * validation split: `spent(t)` is the share of the overall type I error α that may have been
 * used by information fraction t = look / looks. Two shapes:
 * - `pocock`: α·ln(1 + (e − 1)·t), spent fairly evenly, so a large effect stops at the first look;
 * - `obrien-fleming`: 2 − 2·Φ(z₁₋α/₂ / √t), almost nothing early, nearly all of α at the last look.
 * `looks` = 1 is the fixed-sample test: all of α at once.
 */
export type Spending = 'pocock' | 'obrien-fleming'

export const SPENDINGS: readonly Spending[] = ['pocock', 'obrien-fleming']

function phi(z: number): number {
  // the standard normal CDF from erfc (Numerical Recipes' erfcc: |error| < 1.2e-7)
  const x = Math.abs(z) / Math.SQRT2
  const t = 1 / (1 + 0.5 * x)
  const erfc = t * Math.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
  return z >= 0 ? 1 - erfc / 2 : erfc / 2
}

/** α spent by information fraction t (0..1). */
export function spent(alpha: number, t: number, how: Spending): number {
  probability('alpha', alpha)
  if (!(t >= 0)) throw new InvalidInputError(`information fraction must be >= 0, got ${t}`)
  if (t === 0) return 0
  if (t >= 1) return alpha
  if (how === 'pocock') return alpha * Math.log(1 + (Math.E - 1) * t)
  return Math.min(alpha, 2 - 2 * phi(normalQuantile(1 - alpha / 2) / Math.sqrt(t)))
}

/**
 * The level the test is held to at `look` of `looks`: the α this look may spend, α(t_k) −
 * α(t_{k−1}). Each look tests all the pairs so far at its own share, so by the union bound
 * the chance of a false accept at ANY look is at most Σ shares = α, whatever the correlation
 * between looks — and the level of a look depends on nothing but (α, look, looks), so a
 * decision made at a look can be checked again from its evidence alone. Past the last look
 * nothing is left to spend (level 0).
 */
export function lookLevel(alpha: number, look: number, looks: number, how: Spending): number {
  count('look', look)
  count('looks', looks)
  if (look < 1 || looks < 1) throw new InvalidInputError(`look and looks must be at least 1, got ${look} of ${looks}`)
  if (look > looks) return 0
  return spent(alpha, look / looks, how) - spent(alpha, (look - 1) / looks, how)
}
