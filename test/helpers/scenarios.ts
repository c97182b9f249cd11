import {readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {loadScenarios, type Scenario} from '../../src/scenarios/index.js'
import type {SkillText} from '../../src/agents/types.js'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const SCENARIO_DIR = path.join(ROOT, 'scenarios')

let cached: Scenario[] | undefined
export async function builtinScenarios(): Promise<Scenario[]> {
  return (cached ??= await loadScenarios(SCENARIO_DIR))
}

export function skill(rel: string, name = path.basename(path.dirname(rel))): SkillText {
  return {name, content: readFileSync(path.join(ROOT, rel), 'utf8')}
}

export const INITIAL = () => skill('skills/onboarding/SKILL.md')
export const EXPERT = () => skill('test/fixtures/skills/onboarding-expert/SKILL.md')

/** How many built-in scenarios there are, in all and per split (the benchmark grows: tests count, they do not hard-code). */
export async function builtinCounts(): Promise<{all: number; train: number; validation: number; holdout: number}> {
  const all = await builtinScenarios()
  const n = (split: string) => all.filter(s => s.split === split).length
  return {all: all.length, train: n('train'), validation: n('validation'), holdout: n('holdout')}
}
