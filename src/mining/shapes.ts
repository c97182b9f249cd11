import {reportsState as stateOf, requiresApproval as approvalAsked, resultShows, type ResultCondition, type StateCondition} from '../knowledge/index.js'
import type {Call, View} from './types.js'
import {isRecord, type Vocabulary} from './vocabulary.js'

/**
 * The closed vocabulary of the skill language, judged on the calls of a run with the same
 * shape checks the agent uses (src/knowledge/conditions.ts). No tool name, error code or
 * domain value appears here.
 */
export const RESULT_CONDITIONS: readonly ResultCondition[] = ['pending_info', 'multiple_matches', 'no_match', 'contradicts_task']

export function resultHolds(c: ResultCondition, call: Call, view: View, vocab: Vocabulary): boolean {
  if (!call.ok) return false
  // a record read back (the call changed nothing), not the receipt of an action
  if (c === 'contradicts_task' && call.wrote) return false
  return resultShows(c, call.result, {schema: vocab.schemaOf(call.tool), contradicts: r => vocab.contradicts(call.tool, r, view.text)})
}

export {STATE_FIELD} from '../knowledge/index.js'
export const STATES: readonly StateCondition[] = ['open_blockers', 'holds_items']

/** What a call says about a state: true (it holds), false (it does not), undefined (silent). */
export function reportsState(s: StateCondition, call: Call): boolean | undefined {
  return stateOf(s, call)
}

/** "when the policy requires it": the read before the call answered `requires_approval: true`. */
export function requiresApproval(call: Call | undefined): boolean {
  return !!call?.ok && approvalAsked(call.result)
}

export function hasApprovalFlag(call: Call): boolean {
  return call.ok && isRecord(call.result) && typeof call.result.requires_approval === 'boolean'
}
