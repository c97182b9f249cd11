/**
 * The closed vocabularies of the rule language: id → the exact English phrase. A phrase
 * names a shape of results (docs/scripted-agent.md), never a tool, a code or a domain value.
 */
export const WHEN = {policy_requires: 'the policy requires it'} as const
export const GUARDS = {
  in_stock: ' and only assign a model that is in stock',
  reuse_open: ' and reuse an open ticket with the same subject',
  each_held: ' for every item the employee holds',
} as const
export const RESULTS = {
  pending_info: 'pending information',
  multiple_matches: 'more than one match',
  no_match: 'no match',
  contradicts_task: 'a record that contradicts the task',
} as const
export const STATES = {
  open_blockers: 'the workflow has open blockers',
  holds_items: 'the workflow has open items',
} as const

export type When = keyof typeof WHEN
export type Guard = keyof typeof GUARDS
export type ResultCondition = keyof typeof RESULTS
export type StateCondition = keyof typeof STATES

export const keyOf = <T extends Record<string, string>>(vocab: T, phrase: string): keyof T | undefined =>
  (Object.keys(vocab) as (keyof T)[]).find(k => vocab[k] === phrase)
