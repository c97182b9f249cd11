import type {DecisionBody} from '../records/types.js'
import type {TrustInput} from './types.js'

/**
 * Whether a reject that says main had moved from the base (`based on the current main`
 * failed: loop/promote.ts, attempts/promote.ts) can be so: main is not at that base now.
 * (When it was decided cannot be told; where main is unknown here, it is taken as said.)
 */
export function movedMain(d: DecisionBody, input: TrustInput, base: string | undefined): boolean {
  if (!d.checks.some(c => c.name === 'based on the current main' && !c.passed)) return false
  return input.main === undefined || base === undefined || input.main !== base
}
