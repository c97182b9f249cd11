import {stringify} from '../vendor/yaml.js'
import type {ExpRecord} from '../records/index.js'
import {renderRule} from '../knowledge/index.js'
import {formatPurpose, type Purpose} from '../skills/index.js'

/** Paths of a skill on the main branch. */
export const skillPath = (skill: string) => `skills/${skill}/SKILL.md`
export const purposePath = (skill: string) => `skills/${skill}/PURPOSE.yaml`
export const knowledgePath = (slug: string) => `knowledge/${slug}.yaml`

/** The human-facing YAML of an accepted knowledge record, as it lands on main with a promotion. */
export function knowledgeYaml(k: ExpRecord<'knowledge'>): string {
  const b = k.body
  const doc = {
    id: k.id,
    slug: b.slug,
    claim: b.claim,
    ...(b.rule ? {rule: renderRule(b.rule)} : {}),
    scope: b.scope,
    conditions: b.conditions,
    evidence: b.evidence,
    statistics: b.statistics,
    confidence: b.confidence,
    ...(b.confidence_formula ? {confidence_formula: b.confidence_formula} : {}),
    status: b.status,
    supersedes: b.supersedes,
    contradicts: b.contradicts,
  }
  return `# ${b.slug}: written by exp from knowledge record ${k.id} (do not edit: append a superseding record instead)\n${stringify(doc, {lineWidth: 0})}`
}

export function purposeText(p: Purpose): string {
  return formatPurpose(p)
}
