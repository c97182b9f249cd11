import {readFileSync} from 'node:fs'
import path from 'node:path'
import {Ajv2020, type ValidateFunction} from 'ajv/dist/2020.js'
import {SCHEMA_DIR} from '../records/index.js'

const BASE = 'https://experience-compiler.dev/schemas/'

let ajv: Ajv2020 | undefined

/**
 * The skill file schemas (PURPOSE.yaml, patches), compiled once from the same files in
 * schemas/ that readers and writers share. A separate ajv instance: these are not record
 * kinds, and `discriminator` (one error per wrong edit, not one per oneOf branch) needs
 * an option the record validator does not set.
 */
export function skillValidator(name: 'skill-purpose' | 'skill-patch'): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({allErrors: true, strict: true, discriminator: true})
    for (const f of ['defs.schema.json', 'skill-purpose.schema.json', 'skill-patch.schema.json']) {
      ajv.addSchema(JSON.parse(readFileSync(path.join(SCHEMA_DIR, f), 'utf8')))
    }
  }
  return ajv.getSchema(`${BASE}${name}.schema.json`)!
}
