import {InvalidInputError} from '../../errors/index.js'

/** Argument checks at the public boundary of the statistics (they are pure, so a bad count is a caller bug). */
export function count(name: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0) throw new InvalidInputError(`${name} must be a non-negative integer, got ${v}`, {[name]: v})
}

export function probability(name: string, v: number, open = true): void {
  const ok = open ? v > 0 && v < 1 : v >= 0 && v <= 1
  if (!Number.isFinite(v) || !ok) throw new InvalidInputError(`${name} must be in ${open ? '(0, 1)' : '[0, 1]'}, got ${v}`, {[name]: v})
}
