import type {Ajv2020, ValidateFunction} from 'ajv/dist/2020.js'
import {newAjv} from '../ajv.js'
import {precompiled} from '../compiled.js'
import type {ToolResult, ToolSpec} from '../../agents/types.js'
import type {Tx} from '../state.js'
import type {CollectionName} from '../types.js'

/**
 * Machine-readable facts about a tool, beyond what an LLM sees: which collections it
 * reads and writes (for collateral-damage checks and the miner), which error codes it
 * can return, and its simulated latency.
 */
export interface ToolMeta {
  name: string
  kind: 'read' | 'write'
  reads: readonly CollectionName[]
  writes: readonly CollectionName[]
  errors: readonly string[]
  latencyMs: number
}

export interface ToolDef<A = Record<string, unknown>> extends ToolMeta {
  description: string
  /** JSON Schema of the arguments, usable as an OpenAI function `parameters` object */
  parameters: Record<string, unknown>
  /** JSON Schema of a successful result (only where agents need to know which fields must be set) */
  returns?: Record<string, unknown>
  run(tx: Tx, args: A): ToolResult
  /** compiled once, on the tool's first call; never per call */
  validate: ValidateFunction
}

// one instance for every tool schema, when the build's validators (src/world/compiled.ts) do not
// serve: compiling all the tools costs ~0.1 s of CPU, once per process, and only in one that calls
// a tool (commands that load the world without running an episode skip it)
let ajv: Ajv2020 | undefined

/** The options tool schemas are compiled with (here and at build time: scripts/world-validators.mjs). */
export const TOOL_AJV = {allErrors: false, strict: true} as const

/** Every tool may fail with these, whatever its own list says. */
export const COMMON_ERRORS = ['INVALID_ARGUMENTS'] as const

export function defineTool<A>(def: Omit<ToolDef<A>, 'validate' | 'errors'> & {errors: readonly string[]}): ToolDef<A> {
  const parameters = {type: 'object', additionalProperties: false, ...def.parameters}
  let compiled: ValidateFunction | undefined
  const out = {...def, parameters, errors: [...COMMON_ERRORS, ...def.errors]} as unknown as ToolDef<A>
  Object.defineProperty(out, 'validate', {enumerable: true, get: () => (compiled ??= precompiled('tools', def.name, parameters) ?? (ajv ??= newAjv(TOOL_AJV)).compile(parameters))})
  return out
}

export function ok(result: unknown): ToolResult {
  return {ok: true, result}
}

export function fail(code: string, message: string): ToolResult {
  return {ok: false, error: {code, message}}
}

export function specOf(def: ToolDef<any>): ToolSpec {
  const spec: ToolSpec = {name: def.name, description: def.description, parameters: def.parameters}
  if (def.returns) spec.returns = def.returns
  return spec
}

/** Common argument schemas, so every tool spells the same thing the same way. */
export const ARG = {
  employee_id: {type: 'string', pattern: '^E-[0-9]{4}$', description: 'employee id, e.g. E-1031'},
  model: {type: 'string', minLength: 1, description: 'device model id from the inventory, e.g. thinkpad-x1'},
  system: {type: 'string', minLength: 1, description: 'access system id, e.g. crm'},
  ticket_id: {type: 'string', pattern: '^TCK-[0-9]{4}$', description: 'ticket id, e.g. TCK-0101'},
  workflow_id: {type: 'string', pattern: '^WF-[0-9]{4}$', description: 'workflow id, e.g. WF-1031'},
  reason: {type: 'string', minLength: 1, maxLength: 2000},
} as const
