import {createRequire} from 'node:module'
import type {Ajv2020, Options} from 'ajv/dist/2020.js'

const load = createRequire(import.meta.url)

/**
 * A new ajv compiler, its module loaded on the first call: most commands that import the
 * world (fsck, report, provenance) never compile a tool's or a state's schema, and loading
 * ajv and its meta-schemas at import cost each of them ~40 ms.
 */
export function newAjv(options: Options): Ajv2020 {
  const mod = load('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')
  return new mod.Ajv2020(options)
}
