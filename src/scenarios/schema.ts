import type {ErrorObject} from 'ajv'
import {validator as compiled} from '../records/validate.js'

/** schemas/scenario.schema.json's validator, compiled with the other schemas at development time (scripts/gen-validators.mjs) */
const validator = () => compiled('scenario.schema.json')

export interface SchemaIssue {
  /** data path of the offending node */
  path: (string | number)[]
  message: string
}

const segs = (pointer: string): (string | number)[] =>
  pointer === '' ? [] : pointer.slice(1).split('/').map(s => s.replace(/~1/g, '/').replace(/~0/g, '~')).map(s => (/^\d+$/.test(s) ? Number(s) : s))

/**
 * Validate and turn ajv's errors into a few readable issues: unknown fields point at the
 * field, the "one of these fields" alternatives of anyOf/oneOf are merged into one message,
 * and the umbrella errors of if/anyOf/oneOf are dropped when a more precise one exists.
 */
export function checkScenarioSchema(data: unknown): SchemaIssue[] {
  const validate = validator()
  if (validate(data)) return []
  const errors = validate.errors ?? []
  const out: SchemaIssue[] = []
  const alternatives = new Map<string, string[]>()
  const precise = new Set<string>()
  for (const e of errors) {
    if (e.keyword === 'required' && /\/(anyOf|oneOf)\/\d+\/required$/.test(e.schemaPath)) {
      const list = alternatives.get(e.instancePath) ?? []
      list.push((e.params as {missingProperty: string}).missingProperty)
      alternatives.set(e.instancePath, list)
      continue
    }
    if (['if', 'anyOf', 'oneOf'].includes(e.keyword)) continue
    precise.add(e.instancePath)
    out.push(issueOf(e))
  }
  // several forms matched: the "missing field" alternatives of that oneOf are noise
  const tooMany = new Set(errors.filter(e => e.keyword === 'oneOf' && (e.params as {passingSchemas?: number[] | null}).passingSchemas).map(e => e.instancePath))
  for (const [at, names] of alternatives) if (!tooMany.has(at)) out.push({path: segs(at), message: `needs one of the fields: ${[...new Set(names)].join(', ')}`})
  for (const e of errors) {
    if (tooMany.has(e.instancePath) && e.keyword === 'oneOf') {
      out.push({path: segs(e.instancePath), message: 'must have exactly one constraint form (before, never, called, max_calls, max_errors)'})
    } else if (e.keyword === 'anyOf' && !alternatives.has(e.instancePath) && ![...precise].some(p => p.startsWith(e.instancePath))) {
      out.push({path: segs(e.instancePath), message: 'does not match any allowed form'})
    }
  }
  return out
}

function issueOf(e: ErrorObject): SchemaIssue {
  const at = segs(e.instancePath)
  switch (e.keyword) {
    case 'additionalProperties':
      return {path: [...at, (e.params as {additionalProperty: string}).additionalProperty], message: `unknown field "${(e.params as {additionalProperty: string}).additionalProperty}"`}
    case 'required':
      return {path: at, message: `missing required field "${(e.params as {missingProperty: string}).missingProperty}"`}
    case 'enum':
      return {path: at, message: `must be one of: ${(e.params as {allowedValues: unknown[]}).allowedValues.join(', ')}`}
    case 'propertyNames':
      return {path: at, message: `has an invalid key: ${(e.params as {propertyName: string}).propertyName}`}
    default:
      return {path: at, message: `${at.length ? at.join('.') : 'scenario'} ${e.message ?? 'is invalid'}`}
  }
}
