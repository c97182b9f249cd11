import type {ValidateFunction} from 'ajv/dist/2020.js'
import {newAjv} from './ajv.js'
import {precompiled} from './compiled.js'
import type {WorldState} from './types.js'

/**
 * JSON Schema of a whole world state. Used by the scenario linter (not on the hot path) so
 * that an override with a misspelt field or a wrong type is reported instead of silently
 * producing a world the tools do not understand.
 */
const str = {type: 'string'}
const strOrNull = {type: ['string', 'null']}
const strs = {type: 'array', items: str}
const int = {type: 'integer', minimum: 0}
const ts = {type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$'}
const tsOrNull = {anyOf: [ts, {type: 'null'}]}
const date = {type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'}
const dateOrNull = {anyOf: [date, {type: 'null'}]}
const employeeId = {type: 'string', pattern: '^E-[0-9]{4}$'}
const rec = (required: string[], properties: Record<string, unknown>) => ({type: 'object', additionalProperties: false, required, properties})
const coll = (item: unknown) => ({type: 'object', additionalProperties: item})
const all = (props: Record<string, unknown>) => rec(Object.keys(props), props)

const blocker = all({id: str, reason: str, category: str, status: {enum: ['open', 'resolved']}, created_at: ts})

export const STATE_SCHEMA = all({
  settings: all({company: str, now: ts, enforce: all({workflow_blockers: {type: 'boolean'}, offboarding_items: {type: 'boolean'}, ticket_dedupe: {type: 'boolean'}})}),
  seq: all({ticket: int, assignment: int, approval: int, procurement: int, escalation: int, blocker: int, denial: int}),
  departments: coll(all({id: str, name: str, manager: str})),
  employees: coll(all({
    id: employeeId, name: str, email: str, department: str, manager: strOrNull, role: str,
    status: {enum: ['pending', 'active', 'offboarding', 'terminated']}, employment_type: {enum: ['employee', 'contractor', 'intern']},
    start_date: dateOrNull, end_date: dateOrNull, pending_info: strs,
    leave: {anyOf: [all({from: date, until: date, delegate: {anyOf: [employeeId, {type: 'null'}]}}), {type: 'null'}]},
  })),
  devices: coll(all({model: str, name: str, category: {enum: ['laptop', 'phone', 'monitor', 'accessory']}, stock: int, unit_cost: {type: 'number'}, allowed_roles: strs})),
  assignments: coll(all({id: str, employee: str, model: str, status: {enum: ['assigned', 'returned']}, assigned_at: ts, returned_at: tsOrNull})),
  systems: coll(all({
    id: str, name: str, allowed_roles: strs, allowed_employment: {type: 'array', items: {enum: ['employee', 'contractor', 'intern']}},
    approval: all({required: {type: 'boolean'}, approver: {enum: ['manager', 'security', null]}, enforced: {type: 'boolean'}}),
  })),
  access: coll(all({employee: str, system: str, status: {enum: ['active', 'revoked']}, granted_at: ts, revoked_at: tsOrNull, approval: strOrNull})),
  approvals: coll(all({id: str, employee: str, system: str, approver: str, status: {enum: ['approved']}, requested_at: ts})),
  tickets: coll(all({
    id: {type: 'string', pattern: '^TCK-[0-9]{4}$'}, subject: str, description: str, employee: strOrNull, category: str,
    priority: {enum: ['low', 'normal', 'high']}, status: {enum: ['open', 'in_progress', 'blocked', 'resolved', 'closed', 'duplicate']},
    duplicate_of: strOrNull, blockers: {type: 'array', items: blocker}, comments: strs, created_at: ts, updated_at: ts,
  })),
  procurement: coll(all({id: str, employee: strOrNull, model: str, quantity: int, justification: str, status: {enum: ['requested']}, requested_at: ts})),
  workflows: coll(all({
    id: {type: 'string', pattern: '^WF-[0-9]{4}$'}, type: {enum: ['onboarding', 'offboarding']}, employee: str, status: {enum: ['open', 'completed']},
    items: {type: 'array', items: {oneOf: [all({type: {const: 'device'}, model: str}), all({type: {const: 'access'}, system: str})]}},
    blockers: {type: 'array', items: blocker}, completed_at: tsOrNull,
  })),
  escalations: coll(all({id: str, employee: strOrNull, target: strOrNull, team: str, reason: str, created_at: ts})),
  denials: coll(all({id: str, employee: strOrNull, item: strOrNull, target: strOrNull, reason: str, created_at: ts})),
  documents: coll(all({id: str, title: str, tags: strs, body: str})),
  policies: coll(all({topic: str, title: str, text: str, rules: {type: 'object'}})),
})

// the build's (src/world/compiled.ts), else compiled once, on first use: not at import, which every command loading the world paid
let compiled: ValidateFunction<WorldState> | undefined
const validator = () => (compiled ??= (precompiled('state', 'state', STATE_SCHEMA) as ValidateFunction<WorldState> | undefined) ?? newAjv(STATE_AJV).compile<WorldState>(STATE_SCHEMA))

/** The options the state schema is compiled with (here and at build time: scripts/world-validators.mjs). */
export const STATE_AJV = {allErrors: true, strict: true, allowUnionTypes: true} as const

export interface StateProblem {
  /** dotted path of the offending value (`employees.E-1031.pending_info`) */
  path: string
  message: string
}

export function checkState(state: unknown): StateProblem[] {
  const validate = validator()
  if (validate(state)) return []
  return (validate.errors ?? []).map(e => {
    let path = e.instancePath.slice(1).split('/').join('.')
    if (e.keyword === 'additionalProperties') path += `${path ? '.' : ''}${(e.params as {additionalProperty: string}).additionalProperty}`
    if (e.keyword === 'required') path += `${path ? '.' : ''}${(e.params as {missingProperty: string}).missingProperty}`
    const message = e.keyword === 'additionalProperties' ? 'is not a field of this record' : e.keyword === 'required' ? 'is missing' : (e.message ?? 'is invalid')
    return {path, message}
  })
}
