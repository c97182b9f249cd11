import {createRequire} from 'node:module'
import path from 'node:path'
import type {ErrorObject} from 'ajv'
import {SchemaError, type SchemaProblem} from '../errors/index.js'
import {KINDS, type Kind} from './kinds.js'
import {PACKAGE_ROOT} from '../package-root.js'

/** The folder of JSON Schemas shipped with the package (the same at write and read time). */
export const SCHEMA_DIR = path.join(PACKAGE_ROOT, 'schemas')

export interface CompiledValidator {
  (data: unknown): boolean
  errors?: ErrorObject[] | null
}

const requireCompiled = createRequire(import.meta.url)
const loaded = new Map<string, CompiledValidator>()

/**
 * The compiled validator of a schema path relative to schemas/. These are ajv's own
 * compiled functions, generated at development time into schemas/compiled/ (one module per
 * schema, scripts/gen-validators.mjs), so nothing is compiled when the CLI starts, and a
 * command loads only the validators it uses.
 */
export function validator(rel: string): CompiledValidator {
  let v = loaded.get(rel)
  if (!v) {
    const file = path.join(SCHEMA_DIR, 'compiled', `${rel.replace(/\.schema\.json$/, '').replace(/[^A-Za-z0-9]+/g, '_')}.cjs`)
    try {
      v = (requireCompiled(file) as {validate: CompiledValidator}).validate
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') throw new Error(`no compiled validator for schemas/${rel} (${file}): run npm run gen`)
      throw e
    }
    loaded.set(rel, v)
  }
  return v
}

export function problemsOf(errors: ErrorObject[] | null | undefined, prefix = ''): SchemaProblem[] {
  // an if/then/else only says which branch failed; the branch's own error names the field
  return (errors ?? []).filter(e => e.keyword !== 'if').map(e => {
    let at = prefix + e.instancePath.replace(/\//g, '.')
    let message = e.message ?? 'is invalid'
    if (e.keyword === 'additionalProperties') {
      at += `.${(e.params as {additionalProperty: string}).additionalProperty}`
      message = 'is not an allowed field'
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${(e.params as {allowedValues: unknown[]}).allowedValues.join(', ')}`
    } else if (e.keyword === 'false schema') {
      message = 'is not allowed in this version of the file (see its version field)'
    } else if (e.keyword === 'required') {
      at += `.${(e.params as {missingProperty: string}).missingProperty}`
      message = 'is required'
    }
    return {path: at.replace(/^\./, '').replace(/\.{2,}/g, '.'), message}
  })
}

/** Validate a body of `kind`; returns problems (empty when valid). */
export function checkBody(kind: Kind, body: unknown): SchemaProblem[] {
  const v = validator(`records/${kind}.schema.json`)
  return v(body) ? [] : problemsOf(v.errors, 'body.')
}

export function checkEnvelope(rec: unknown): SchemaProblem[] {
  const v = validator('envelope.schema.json')
  return v(rec) ? [] : problemsOf(v.errors)
}

/** Full record check: envelope, then the body by its kind, then the schema tag. */
export function checkRecord(rec: unknown): SchemaProblem[] {
  const env = checkEnvelope(rec)
  if (env.length) return env
  const r = rec as {kind: Kind; schema: string; body: unknown}
  const problems = checkBody(r.kind, r.body)
  const expected = `${r.kind}@${KINDS[r.kind].version}`
  // an older version of the kind is still read: each new body schema accepts the bodies of the versions before it
  const v = /^([a-z]+)@([1-9][0-9]*)$/.exec(r.schema)
  if (!v || v[1] !== r.kind || Number(v[2]) > KINDS[r.kind].version) problems.push({path: 'schema', message: `must be ${expected} (or an older version) for kind ${r.kind}`})
  return problems
}

export function assertBody(kind: Kind, body: unknown, file?: string): void {
  const p = checkBody(kind, body)
  if (p.length) throw new SchemaError(`${kind} record`, p, file)
}

/** Validate a `.research/` document (config, contract, policy). */
export function assertResearchFile(name: 'config' | 'contract' | 'policy', doc: unknown, file?: string): void {
  const v = validator(`research/${name}.schema.json`)
  if (!v(doc)) throw new SchemaError(`.research/${name}.yaml`, problemsOf(v.errors), file)
}
