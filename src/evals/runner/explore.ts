import {createHash} from 'node:crypto'
import {parseRule} from '../../knowledge/index.js'
import type {SkillText} from '../../agents/types.js'
import {ExpError} from '../../errors/index.js'

/**
 * Exploration in training (docs/loop.md, "Exploration"). Once a rule is in the skill, the agent
 * follows it in every training run, so the runs never show what another reaction to the same
 * situation would have done: a rule learned from a few lucky runs can never be found wanting
 * against a better one. A training run with exploration reads the skill without some of its
 * rules, each left out with probability `rate`, decided by a hash of the run's seed, scenario,
 * repetition and the line: the same run always reads the same text, and the text it read is
 * in its trace. Only lines in the rule language are left out (the procedure's prose stays),
 * whatever agent reads them. Validation, held-out and gate runs never explore.
 */
export interface Explore {
  /** probability that a rule line is left out of one training run's skill, in [0, 1) */
  rate: number
}

/** The exploration rate of evolve's training runs when nothing else is set. */
export const DEFAULT_EXPLORE_RATE = 0.3

/** The rate a flag gives (a number, or its text), or a usage error unless it is a probability below 1. */
export function checkExploreRate(value: number | string, flag = '--explore'): number {
  const rate = typeof value === 'number' ? value : value.trim() === '' ? Number.NaN : Number(value)
  if (!Number.isFinite(rate) || rate < 0 || rate >= 1) throw new ExpError('E_USAGE', `${flag} must be a number in [0, 1), got ${JSON.stringify(String(value))}`, {hint: 'use a number from 0 (no exploration) up to but not including 1, e.g. 0.3', data: {flag, value: String(value)}})
  return rate
}

/** A number in [0, 1) from the hash of `parts` (the same parts, the same number on every machine). */
function unit(parts: readonly (string | number)[]): number {
  const h = createHash('sha256').update(parts.join('\u0000')).digest()
  return h.readUInt32BE(0) / 2 ** 32
}

/**
 * The skill as one training run reads it: each line in the rule language left out with
 * probability `rate`. Returns the text and the 1-based numbers of the lines left out.
 */
export function exploreText(text: string, rate: number, key: readonly (string | number)[]): {content: string; dropped: number[]} {
  if (rate <= 0) return {content: text, dropped: []}
  const lines = text.split('\n')
  const dropped: number[] = []
  const kept = lines.filter((line, k) => {
    if (!parseRule(line) || unit([...key, k, line]) >= rate) return true
    dropped.push(k + 1)
    return false
  })
  return {content: dropped.length ? kept.join('\n') : text, dropped}
}

/**
 * The skill texts of one training run with exploration (the recalled knowledge, if any, is left
 * whole), and the lines left out; `dropped` is undefined without exploration.
 */
export function exploreSkills(skills: readonly SkillText[], e: Explore | undefined, key: readonly (string | number)[]): {skills: SkillText[]; dropped?: number[]} {
  if (!e || e.rate <= 0 || !skills.length) return {skills: [...skills]}
  const [first, ...rest] = skills
  const x = exploreText(first!.content, e.rate, [...key, first!.name])
  return {skills: [{...first!, content: x.content}, ...rest], dropped: x.dropped}
}
