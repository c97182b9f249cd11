import type {ResultCondition, StateCondition} from '../agents/scripted/rules.js'
import type {Call, View} from './types.js'
import {isRecord, type Vocabulary} from './vocabulary.js'

/**
 * The closed vocabulary of the skill language, read from generic result shapes only:
 * which field of a result says "pending information", "more than one match", "open blockers".
 * No tool name, error code or domain value appears here.
 */
export const RESULT_CONDITIONS: readonly ResultCondition[] = ['pending_info', 'multiple_matches', 'no_match', 'contradicts_task']

export function resultHolds(c: ResultCondition, call: Call, view: View, vocab: Vocabulary): boolean {
  if (!call.ok || !isRecord(call.result)) return false
  const r = call.result
  switch (c) {
    case 'pending_info': return Array.isArray(r.pending_info) && r.pending_info.length > 0
    case 'multiple_matches': return Array.isArray(r.matches) && r.matches.length > 1
    case 'no_match': return Array.isArray(r.matches) && r.matches.length === 0
    // a record (it has an id) read back, not the receipt of an action
    case 'contradicts_task': return !call.wrote && typeof r.id === 'string' && vocab.contradicts(call.tool, r, view.text)
  }
}

/** The count field that reports a state; an error code spelling the same words reports it too. */
export const STATE_FIELD: Record<StateCondition, string> = {open_blockers: 'open_blockers', holds_items: 'open_items'}
export const STATES: readonly StateCondition[] = ['open_blockers', 'holds_items']

/** What a call says about a state: true (it holds), false (it does not), undefined (silent). */
export function reportsState(s: StateCondition, call: Call): boolean | undefined {
  const field = STATE_FIELD[s]
  if (!call.ok) return call.code === field.toUpperCase() ? true : undefined
  if (!isRecord(call.result) || typeof call.result[field] !== 'number') return undefined
  return (call.result[field] as number) > 0
}

/** "when the policy requires it": the read before the call answered `requires_approval: true`. */
export function requiresApproval(call: Call | undefined): boolean {
  return !!call?.ok && isRecord(call.result) && call.result.requires_approval === true
}

export function hasApprovalFlag(call: Call): boolean {
  return call.ok && isRecord(call.result) && typeof call.result.requires_approval === 'boolean'
}
