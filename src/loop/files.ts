import {stringify} from '../vendor/yaml.js'
import type {ExpRecord} from '../records/index.js'
import {renderRule} from '../knowledge/index.js'
import {formatPurpose, type Purpose} from '../skills/index.js'
import {NotFoundError} from '../errors/index.js'
import {nearest} from '../errors/nearest.js'
import type {Workspace} from '../workspace/port.js'

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

/**
 * The PURPOSE.yaml a proposal's branch holds: every field from the proposal record (its skill,
 * id, proposer and lane, the knowledge it cites and their slugs) and the version at its base + 1.
 * What `exp propose` (and `exp ablate`) write, and what `exp eval` and `exp promote` require
 * (src/loop/proposal-files.ts): a branch that holds anything else is not judged.
 */
export function proposedPurpose(o: {skill: string; version: number; knowledge: readonly ExpRecord<'knowledge'>[]; proposer: {name: string; version: string; model?: string}; lane: string; proposal: string}): Purpose {
  return {
    skill: o.skill,
    version: o.version,
    status: 'proposed',
    derived_from: o.knowledge.map(k => k.body.slug),
    knowledge: o.knowledge.map(k => k.id),
    proposed_by: {proposer: o.proposer.name, version: o.proposer.version, lane: o.lane, ...(o.proposer.model !== undefined ? {model: o.proposer.model} : {})},
    proposal: o.proposal,
  }
}

/** The skills at a commit: the folders of skills/ that hold a SKILL.md, sorted. */
export async function skillsAt(ws: Pick<Workspace, 'pathId' | 'entries'>, commit: string): Promise<string[]> {
  const dir = await ws.pathId(commit, 'skills')
  if (dir?.kind !== 'tree') return []
  const out: string[] = []
  for (const e of await ws.entries(dir.oid)) if (e.kind === 'tree' && (await ws.entries(e.oid)).some(f => f.name === 'SKILL.md' && f.kind === 'blob')) out.push(e.name)
  return out.sort()
}

/**
 * The error for a skill the main branch does not have, its hint naming the skills it has (the
 * closest to the one typed first) or saying it has none. `at`: main's tip (undefined: no main).
 */
export async function unknownSkill(ws: Pick<Workspace, 'pathId' | 'entries'>, at: string | undefined, branch: string, skill: string): Promise<NotFoundError> {
  const name = branch.replace(/^refs\/heads\//, '')
  const have = at ? await skillsAt(ws, at) : []
  const near = nearest(skill, have)
  const listed = have.length > 8 ? `${have.slice(0, 8).join(', ')} (+${have.length - 8} more)` : have.join(', ')
  const hint = near ? `did you mean ${near}? The skills on ${name}: ${listed}` : have.length ? `the skills on ${name}: ${listed}` : `${name} has no skills yet: \`exp init --example onboarding\` adds one, or commit skills/<name>/SKILL.md with its PURPOSE.yaml`
  return new NotFoundError('skill on main', `${name}:${skillPath(skill)}`, hint)
}
