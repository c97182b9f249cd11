import {parseRule, type Rule} from '../../knowledge/index.js'

/**
 * The naive agent's habits: the expert rules it *sometimes* follows without being told,
 * like a sampled LLM. Each habit is written in the rule language; in an episode it is
 * active when the habit's draw is below `p` (or below `informed` when the agent already
 * saw the problem coming, e.g. a stock of 0 in the inventory rather than an error).
 * A rule in the skill always wins over a habit about the same trigger.
 * docs/scripted-agent.md lists these.
 */
export interface Habit {
  name: string
  rule: Rule
  /** the rule's canonical line (to tell when the skill already has it) */
  line: string
  p: number
  informed?: number
  /**
   * The naive slip on "and stop": with this probability (its own draw) the habit is followed
   * with `stop` the other way round — escalating and then carrying on anyway, or giving up on
   * the rest of the task after a refusal.
   */
  slip?: number
  /** the naive half-reaction: with this probability only the last call of a reaction is made (escalating without recording the blocker) */
  half?: number
  /**
   * A habit a reader takes from the tool specs it was handed: active only when the description
   * of `tool` says so in words matching `text` (the literal profile follows what is written).
   */
  cue?: {tool: string; text: RegExp}
}

/** Does the spec of the cue's tool say what the habit needs? (no cue: always) */
export function cued(h: Habit, tools: ReadonlyMap<string, {description?: string}>): boolean {
  return !h.cue || h.cue.text.test(tools.get(h.cue.tool)?.description ?? '')
}

/** What the agent does when nothing (no rule, no habit) tells it how to react: weights of each reaction. */
export interface Fallbacks {
  /** a device is out of stock */
  shortage: {give_up: number; substitute: number; carry_on: number}
  /** a device model is reserved for other roles */
  model_refused: {give_up: number; substitute: number; carry_on: number}
  /** get_employee said NOT_FOUND */
  unknown_employee: {search_by_name: number; give_up: number}
  /** an access request was refused, or a check before it failed */
  refused: {give_up: number; carry_on: number}
}

/** A way of working: habits and fallbacks. The naive profile is the reference agent's. */
export interface Profile {
  name: string
  habits: readonly Habit[]
  fallbacks: Fallbacks
  /** chance that a rule of the skill is skipped for a whole episode (its own draw per rule): a careless reader */
  forget?: number
  /** follow a skill line only in the rule's exact canonical form (renderRule, final period included): a literal reader */
  literal?: boolean
}

export const habit = (name: string, line: string, p: number, informed?: number, slip?: number, half?: number): Habit => {
  const rule = parseRule(line)
  if (!rule) throw new Error(`habit ${name} is not a rule: ${line}`)
  return {name, rule, line, p, ...(informed === undefined ? {} : {informed}), ...(slip === undefined ? {} : {slip}), ...(half === undefined ? {} : {half})}
}

/** The habit's rule as followed in an episode: with its slips drawn, `stop` the other way round, or only the last call. */
export function asFollowed(h: Habit, slipped: boolean, halved = false): Rule {
  const r = h.rule
  if (r.kind !== 'on_error' && r.kind !== 'on_result') return r
  return {...r, ...(slipped ? {stop: !r.stop} : {}), ...(halved && r.calls.length > 1 ? {calls: r.calls.slice(-1)} : {})}
}

export const HABITS: readonly Habit[] = [
  habit('check-inventory', 'Before `assign_device`, call `get_inventory` and only assign a model that is in stock.', 0.6),
  habit('handle-shortage', 'If `assign_device` fails with `OUT_OF_STOCK`, call `create_procurement_request`, then `add_blocker`, then `escalate`.', 0.35, 0.7, 0.25, 0.25),
  habit('refuse-model', 'If `assign_device` fails with `MODEL_NOT_ALLOWED`, call `deny_request`.', 0.4, 0.6, 0.25),
  habit('contractor-own-device', 'Never call `assign_device` when `get_employee` shows `employment_type` is `contractor`.', 0.5),
  habit('check-blockers', 'Never call `complete_onboarding` while the workflow has open blockers.', 0.55),
  habit('read-policy', 'Before `grant_access`, call `get_policy` and `request_approval` when the policy requires it.', 0.55),
  habit('retry-approval', 'If `grant_access` fails with `APPROVAL_REQUIRED`, call `request_approval`, then `grant_access`.', 0.75),
  habit('ask-delegate', 'If `request_approval` fails with `APPROVER_ON_LEAVE`, call `request_approval`.', 0.55),
  habit('escalate-refusal', 'If `grant_access` fails with `ROLE_NOT_ALLOWED`, call `add_blocker`, then `escalate`.', 0.35, 0.6, 0.25, 0.3),
  habit('refuse-employment', 'If `grant_access` fails with `EMPLOYMENT_NOT_ALLOWED`, call `deny_request`.', 0.4, 0.6, 0.25),
  habit('search-tickets', 'Before `create_ticket`, call `search_tickets` and reuse an open ticket with the same subject.', 0.55),
  habit('reuse-duplicate', 'If `create_ticket` fails with `DUPLICATE_TICKET`, call `update_ticket`.', 0.7),
  habit('escalate-unknown', 'If `get_employee` fails with `NOT_FOUND`, call `escalate` and stop.', 0.45, undefined, 0.3),
  habit('escalate-pending', 'If `get_employee` returns pending information, call `escalate` and stop.', 0.5, undefined, 0.3),
  habit('escalate-contradiction', 'If `get_employee` returns a record that contradicts the task, call `escalate` and stop.', 0.5, undefined, 0.3),
  habit('escalate-ambiguous', 'If `search_employees` returns more than one match, call `escalate` and stop.', 0.5, undefined, 0.3),
  habit('offboard-everything', 'Before `complete_offboarding`, call `recover_device` and `revoke_access` for every item the employee holds.', 0.55),
  // harmless detours that make trajectories vary like a sampled model's
  habit('read-docs', 'Before `get_employee`, call `search_documents`.', 0.15),
]

export const FALLBACKS: Fallbacks = {
  shortage: {give_up: 0.35, substitute: 0.3, carry_on: 0.35},
  model_refused: {give_up: 0.3, substitute: 0.4, carry_on: 0.3},
  unknown_employee: {search_by_name: 0.55, give_up: 0.45},
  refused: {give_up: 0.5, carry_on: 0.5},
}

export const NAIVE: Profile = {name: 'naive', habits: HABITS, fallbacks: FALLBACKS}
