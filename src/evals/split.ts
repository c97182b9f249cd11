import type {Agent, SkillText} from '../agents/types.js'
import type {Split} from '../records/types.js'
import type {Scenario} from '../scenarios/types.js'
import {gradeEpisode} from './episode.js'
import {episodeSeed} from './prompt.js'

/**
 * Success rates of one configuration (agent + skills) over a set of scenarios, in memory:
 * every scenario × every repetition, graded, nothing recorded. Used by the tests and the
 * benchmark; the git-backed runner writes traces instead.
 */
export interface SplitOptions {
  agent: Agent
  skills: readonly SkillText[]
  /** only scenarios of this split (default: all given) */
  split?: Split
  repetitions?: number
  /** base seed of the run; each repetition's agent seed derives from it */
  seed?: number
  maxSteps?: number
}

export interface ScenarioRate {
  passed: number
  episodes: number
  /** invariant ids (and collateral/constraint markers) that failed, with counts */
  failures: Record<string, number>
}

export interface SplitResult {
  rate: number
  passed: number
  episodes: number
  invalid: number
  byScenario: Record<string, ScenarioRate>
}

export async function runSplit(scenarios: readonly Scenario[], o: SplitOptions): Promise<SplitResult> {
  const picked = o.split ? scenarios.filter(s => s.split === o.split) : scenarios
  const reps = o.repetitions ?? 10
  const base = o.seed ?? 1
  const byScenario: Record<string, ScenarioRate> = {}
  let passed = 0
  let episodes = 0
  let invalid = 0
  for (let r = 0; r < reps; r++) {
    const seed = episodeSeed(base, r)
    for (const scenario of picked) {
      const v = await gradeEpisode({scenario, agent: o.agent, skills: o.skills, seed, repetition: r, ...(o.maxSteps ? {maxSteps: o.maxSteps} : {})})
      const rate = (byScenario[scenario.id] ??= {passed: 0, episodes: 0, failures: {}})
      rate.episodes++
      episodes++
      if (!v.valid) invalid++
      if (v.passed) {
        rate.passed++
        passed++
        continue
      }
      for (const i of v.invariants) if (!i.passed) rate.failures[i.id] = (rate.failures[i.id] ?? 0) + 1
      for (const c of v.constraint_violations) rate.failures[`constraint:${c.constraint}`] = (rate.failures[`constraint:${c.constraint}`] ?? 0) + 1
      if (v.collateral.length) rate.failures.collateral = (rate.failures.collateral ?? 0) + 1
    }
  }
  return {rate: episodes ? passed / episodes : 0, passed, episodes, invalid, byScenario}
}
