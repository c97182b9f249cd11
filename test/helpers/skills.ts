import {readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const FIXTURES = path.join(ROOT, 'test/fixtures/skills-lint')

/** The onboarding skill, valid in every rule. */
export const ONBOARDING = readFileSync(path.join(FIXTURES, 'valid/skills/onboarding/SKILL.md'), 'utf8')

export const BODY = ONBOARDING.slice(ONBOARDING.indexOf('# Employee Onboarding'))

/** A SKILL.md from frontmatter lines (raw YAML) and a body (the valid one by default). */
export function skillText(frontmatter: string[], body = BODY): string {
  return ['---', ...frontmatter, '---', body].join('\n')
}

/** A SKILL.md with only the frontmatter fields changed (null drops a field). */
export function withFields(fields: Record<string, string | null>): string {
  const base: Record<string, string | null> = {name: 'onboarding', description: 'Onboard a new employee end to end.', ...fields}
  return skillText(Object.entries(base).filter(([, v]) => v !== null).map(([k, v]) => `${k}: ${v}`))
}
