import type {IterationReport} from './dashboard.js'

/** What an evolve run decides between iterations and reports at its end (pure, or reads only). */
export const SATURATED = 'validation is at 100%: no candidate can improve it (a not-worse change can still pass the gate with a reviewer\'s approval: success.allow_neutral)'

/** Validation is at 100% and a candidate was still rejected: nothing the loop proposes can pass. */
export function saturated(r: IterationReport): string | undefined {
  if (r.decision?.verdict !== 'reject' || !r.validation || r.validation.baseline < 1) return undefined
  return SATURATED
}

/** When the main skill first reached 85% held-out success, after how many episodes. */
export function reached85(reports: readonly IterationReport[], before: number): {iteration: number; episodes: number} | undefined {
  if (before >= 0.85) return {iteration: 0, episodes: 0}
  const r = reports.find(x => x.decision?.verdict === 'accept' && x.holdout && x.holdout.candidate >= 0.85)
  return r ? {iteration: r.iteration, episodes: r.episodes} : undefined
}

/** Held-out levels reported by `reached`: every tenth, and 85% (the first target of the loop). */
export const HOLDOUT_LEVELS = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1]

/** For each level, when main's held-out success (the promoted candidate's) first reached it. */
export function reachedLevels(reports: readonly IterationReport[], before: number): {level: number; iteration: number; episodes: number}[] {
  const out: {level: number; iteration: number; episodes: number}[] = []
  for (const level of HOLDOUT_LEVELS) {
    if (before >= level - 1e-9) {
      out.push({level, iteration: 0, episodes: 0})
      continue
    }
    const r = reports.find(x => x.decision?.verdict === 'accept' && x.holdout && x.holdout.candidate >= level - 1e-9)
    if (r) out.push({level, iteration: r.iteration, episodes: r.episodes})
  }
  return out
}
