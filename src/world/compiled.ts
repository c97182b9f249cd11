import {createRequire} from 'node:module'
import path from 'node:path'
import type {ValidateFunction} from 'ajv/dist/2020.js'
import {PACKAGE_ROOT} from '../package-root.js'
import {sha256Hex} from '../records/digest.js'

/**
 * Validators of the world's JSON Schemas (each tool's arguments, a whole state) compiled by ajv
 * at build time (scripts/world-validators.mjs, into dist/world/): compiling them cost every
 * process that runs or replays an episode ~0.1 s of CPU, `exp scenarios lint` ~0.15 s more.
 * Each is taken only for the schema it was compiled from (its digest); a schema changed since
 * the build, or a checkout not built, compiles its own at first use.
 */
export const COMPILED_MODULES = {tools: 'tool-validators.cjs', state: 'state-validator.cjs'} as const

const load = createRequire(import.meta.url)
const loaded = new Map<string, {digests: Record<string, string>; validators: Record<string, ValidateFunction>} | null>()

/** The digest a compiled validator is kept under: its schema's JSON text, hashed. */
export function schemaDigest(schema: unknown): string {
  return sha256Hex(JSON.stringify(schema))
}

/** The build's validator `name` of module `which`, if it was compiled from this very schema. */
export function precompiled(which: keyof typeof COMPILED_MODULES, name: string, schema: unknown): ValidateFunction | undefined {
  let mod = loaded.get(which)
  if (mod === undefined) {
    try {
      mod = load(path.join(PACKAGE_ROOT, 'dist', 'world', COMPILED_MODULES[which])) as NonNullable<typeof mod>
    } catch {
      mod = null
    }
    loaded.set(which, mod)
  }
  const f = mod?.validators[name]
  return f && mod!.digests[name] === schemaDigest(schema) ? f : undefined
}
