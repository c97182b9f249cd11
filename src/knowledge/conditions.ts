import type {Condition, Rule} from './types.js'
import type {ResultCondition, StateCondition} from './vocabulary.js'
import {missingFields, type ResultSchema} from './missing.js'

/**
 * What a condition of the rule language means, in one place: the agent checks a rule before
 * acting and the miner judges runs with the same functions. A condition speaks about the
 * latest result of a read (`source`) about the call at hand; the caller says which result
 * that is (`Lookup`): the agent from its memory, the miner from the run (or, for a read the
 * run never made, from another run of the same task).
 */
export type Lookup = (source: string) => unknown

export const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)

/** The value at a dotted path of a result (undefined when any step is missing). */
export function fieldOf(result: unknown, path: string): unknown {
  let v = result
  for (const k of path.split('.')) {
    if (!isRecord(v)) return undefined
    v = v[k]
  }
  return v
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || (isRecord(v) && Object.keys(v).length === 0)

/** A list holds a value: as an element, or as a field of an element (`[{system: 'crm', …}]` holds `crm`). */
export function listHolds(list: unknown, want: unknown): boolean {
  if (!Array.isArray(list) || want === undefined || want === null) return false
  return list.some(e => e === want || (isRecord(e) && Object.values(e).some(x => x === want)))
}

/** Does a condition's test hold of a value, for a call with these arguments? */
export function testHolds(c: Condition, value: unknown, args: Readonly<Record<string, unknown>>): boolean {
  switch (c.test) {
    case 'is': return value === c.value
    case 'is_not': return value !== undefined && value !== c.value
    case 'empty': return isEmpty(value)
    case 'not_empty': return !isEmpty(value)
    case 'includes': return listHolds(value, args[c.arg!])
    case 'excludes': return Array.isArray(value) && !listHolds(value, args[c.arg!])
    case 'above': return typeof value === 'number' ? value > Number(c.value) : Array.isArray(value) ? value.length > Number(c.value) : false
  }
}

/** true / false, or undefined when the source was never read about this call. */
export function conditionHolds(c: Condition, lookup: Lookup, args: Readonly<Record<string, unknown>>): boolean | undefined {
  const result = lookup(c.source)
  if (result === undefined) return undefined
  return testHolds(c, fieldOf(result, c.field), args)
}

/**
 * Does a rule speak about this call? Every `when` condition must hold and no `unless`
 * condition may hold; a condition whose source is unknown neither holds nor excuses.
 */
export function ruleApplies(r: Pick<Rule, 'when' | 'unless'>, lookup: Lookup, args: Readonly<Record<string, unknown>>): boolean {
  for (const c of r.when ?? []) if (conditionHolds(c, lookup, args) !== true) return false
  for (const c of r.unless ?? []) if (conditionHolds(c, lookup, args) === true) return false
  return true
}

/** The sources a rule's conditions read (the agent reads them first when it has not yet). */
export function conditionSources(r: Pick<Rule, 'when' | 'unless'>): string[] {
  return [...new Set([...(r.when ?? []), ...(r.unless ?? [])].map(c => c.source))]
}

export interface ResultShapeOptions {
  /** the JSON Schema of the tool's result: required fields left empty are pending information */
  schema?: ResultSchema
  /** "a record that contradicts the task": the caller's judgement (the agent reads the task, the miner learns values) */
  contradicts?: (record: Record<string, unknown>) => boolean
}

/**
 * The result phrases of the language, from generic shapes: `pending information` is a
 * non-empty `pending_info` list or a field the tool's result schema requires left empty;
 * `more than one match` / `no match` count a `matches` list; a record contradicts the task
 * when the caller says so (it has an `id`: it is a record, not the receipt of an action).
 */
export function resultShows(c: ResultCondition, result: unknown, o: ResultShapeOptions = {}): boolean {
  if (!isRecord(result)) return false
  switch (c) {
    case 'pending_info': return (Array.isArray(result.pending_info) && result.pending_info.length > 0) || (!!o.schema && missingFields(result, o.schema).length > 0)
    case 'multiple_matches': return Array.isArray(result.matches) && result.matches.length > 1
    case 'no_match': return Array.isArray(result.matches) && result.matches.length === 0
    case 'contradicts_task': return typeof result.id === 'string' && !!o.contradicts?.(result)
  }
}

/** The count field that reports a state; an error code spelling the same words reports it too. */
export const STATE_FIELD: Record<StateCondition, string> = {open_blockers: 'open_blockers', holds_items: 'open_items'}

/** What a call's outcome says about a state: true (it holds), false (it does not), undefined (silent). */
export function reportsState(s: StateCondition, o: {ok: boolean; code?: string; result?: unknown}): boolean | undefined {
  const field = STATE_FIELD[s]
  if (!o.ok) return o.code === field.toUpperCase() ? true : undefined
  if (!isRecord(o.result) || typeof o.result[field] !== 'number') return undefined
  return (o.result[field] as number) > 0
}

/** "when the policy requires it": a read answered `requires_approval: true`. */
export function requiresApproval(result: unknown): boolean {
  return isRecord(result) && result.requires_approval === true
}
