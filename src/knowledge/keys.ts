import {renderRule} from './render.js'
import type {Rule} from './types.js'

/** A rule's identity: its canonical line (two rules are the same rule when they render alike). */
export const ruleKey = (r: Rule): string => renderRule(r)

/**
 * When a rule speaks: two rules with one trigger and different responses contradict each
 * other. For `Before` the trigger is the action and its first check (checks are independent
 * of each other; only variants of one check compete); `Never T` and `Never T while S`
 * disagree about T when S does not hold, so they share one.
 */
export function triggerOf(r: Rule): string {
  switch (r.kind) {
    case 'before': return `before:${r.tool}<${r.calls[0]!.tool}`
    case 'on_error': return `on_error:${r.tool}!${r.code}`
    case 'on_result': return `on_result:${r.tool}?${r.result}`
    case 'never': return `never:${r.tool}`
  }
}

/** Every tool a rule names: its trigger and the calls it makes. */
export function toolsOf(r: Rule): string[] {
  const calls = r.kind === 'never' ? [] : r.kind === 'before' ? r.calls.map(c => c.tool) : r.calls
  const sources = [...(r.when ?? []), ...(r.unless ?? [])].map(c => c.source)
  return [...new Set([r.tool, ...calls, ...sources])].sort()
}
