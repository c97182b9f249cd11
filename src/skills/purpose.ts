import {rename, stat, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {Document, isMap, isPair, isScalar, type Node} from '../vendor/yaml.js'
import type {ErrorObject} from 'ajv'
import {NotFoundError, ParseError, SchemaError, isExpError} from '../errors/index.js'
import {readWorkFile} from '../work-file.js'
import {problemsOf} from '../records/index.js'
import {strictYaml} from '../records/yaml.js'
import {skillValidator} from './schemas.js'
import type {ProblemDraft} from './lint-frontmatter.js'
import type {Purpose} from './types.js'

export const PURPOSE_FILE = 'PURPOSE.yaml'

export interface PurposeCheck {
  /** set when the text is valid YAML that matches the schema */
  value?: Purpose
  problems: ProblemDraft[]
}

/**
 * Checks a PURPOSE.yaml text: YAML syntax, then the schema, then (when given) that it
 * names the expected skill. Every problem carries the line of the offending node, so a
 * reviewer can jump to it. Pure: the caller reads the file (from disk or from git).
 */
export function checkPurpose(text: string, expectedSkill?: string): PurposeCheck {
  const {doc, lines: counter, value, problems} = strictYaml(text)
  // (an alias bomb is this file's problem, not an exception for the whole lint, or gate)
  if (problems.length) return {problems: problems.map(p => ({rule: 'purpose/yaml', message: `invalid YAML: ${p.message}`, line: p.line ?? 1, ...(p.column ? {column: p.column} : {})}))}
  const lineOf = (n: Node | null | undefined) => (n?.range ? counter.linePos(n.range[0]).line : undefined)
  const validate = skillValidator('skill-purpose')
  if (!validate(value)) {
    return {
      problems: (validate.errors ?? []).map(e => {
        const [p] = problemsOf([e])
        return {rule: 'purpose/schema', message: `${p!.path || '(root)'} ${p!.message}`, line: lineOf(nodeFor(doc, e)) ?? 1}
      }),
    }
  }
  const purpose = value as Purpose
  if (expectedSkill !== undefined && purpose.skill !== expectedSkill) {
    const line = lineOf(doc.get('skill', true) as Node | undefined)
    return {value: purpose, problems: [{rule: 'purpose/skill', line, message: `skill '${purpose.skill}' does not match the folder name '${expectedSkill}'`}]}
  }
  return {value: purpose, problems: []}
}

/** The YAML node an ajv error is about: the field itself, or the key of an unknown field. */
function nodeFor(doc: Document, e: ErrorObject): Node | undefined {
  const segments = e.instancePath.split('/').slice(1).map(s => s.replace(/~1/g, '/').replace(/~0/g, '~'))
  const at = (segments.length ? doc.getIn(segments, true) : doc.contents) as Node | undefined
  const extra = (e.params as {additionalProperty?: string}).additionalProperty
  if (extra !== undefined && isMap(at)) {
    const pair = at.items.find(p => isPair(p) && isScalar(p.key) && String(p.key.value) === extra)
    return (pair?.key as Node | undefined) ?? at
  }
  return at
}

/** Key order of a written PURPOSE.yaml: identity, then provenance, then the verdict. */
const ORDER = ['skill', 'version', 'status', 'derived_from', 'knowledge', 'proposed_by', 'evaluation', 'proposal', 'decision'] as const
const NESTED: Record<string, readonly string[]> = {
  proposed_by: ['proposer', 'version', 'model', 'human', 'lane'],
  evaluation: ['previous_score', 'candidate_score', 'evaluations', 'verifications'],
}

function ordered(obj: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter(k => obj[k] !== undefined).map(k => [k, obj[k]]))
}

/** PURPOSE.yaml text with a stable key order and a header comment; validated first. */
export function formatPurpose(purpose: Purpose): string {
  const v = skillValidator('skill-purpose')
  if (!v(purpose)) throw new SchemaError(PURPOSE_FILE, problemsOf(v.errors))
  const top = ordered(purpose as unknown as Record<string, unknown>, ORDER)
  for (const [k, keys] of Object.entries(NESTED)) if (top[k]) top[k] = ordered(top[k] as Record<string, unknown>, keys)
  const doc = new Document(top)
  doc.commentBefore = [
    ` Provenance of skills/${purpose.skill}/SKILL.md (format skill-purpose@1,`,
    ' schemas/skill-purpose.schema.json). Written by exp: check it with `exp skills lint`.',
  ].join('\n')
  return doc.toString({lineWidth: 0})
}

async function purposePath(target: string): Promise<string> {
  const s = await stat(target).catch(() => undefined)
  return s?.isDirectory() ? path.join(target, PURPOSE_FILE) : target
}

/** Reads and validates PURPOSE.yaml from a skill folder (or the file itself). */
export async function readPurpose(target: string): Promise<Purpose> {
  const file = await purposePath(target)
  const text = await readWorkFile(file).then(
    b => b.toString('utf8'),
    e => {
      if (isExpError(e)) throw e
      throw new NotFoundError('PURPOSE.yaml', file, 'write one with writePurpose, or see docs/skills.md')
    },
  )
  const {value, problems} = checkPurpose(text)
  const yamlError = problems.find(p => p.rule === 'purpose/yaml')
  if (yamlError) throw new ParseError(file, yamlError.message, yamlError.line, yamlError.column)
  if (!value) throw new SchemaError(PURPOSE_FILE, problems.map(p => ({path: `line ${p.line}:`, message: p.message})), file)
  return value
}

/** Writes PURPOSE.yaml into a skill folder (or to the given file) atomically; returns the path. */
export async function writePurpose(target: string, purpose: Purpose): Promise<string> {
  const file = await purposePath(target)
  const text = formatPurpose(purpose)
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, text)
  await rename(tmp, file)
  return file
}
