import {validator, type CompiledValidator} from '../records/index.js'

/**
 * The skill file schemas (PURPOSE.yaml, patches): the same compiled validators as every
 * record (scripts/gen-validators.mjs compiles all of schemas/, with `discriminator` so a
 * wrong edit gives one error, not one per oneOf branch).
 */
export function skillValidator(name: 'skill-purpose' | 'skill-patch'): CompiledValidator {
  return validator(`${name}.schema.json`)
}
