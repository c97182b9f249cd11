import {renderRule, triggerOf, type Condition, type Rule} from '../knowledge/index.js'
import {sha256Hex} from '../records/digest.js'

/**
 * Deterministic keys. The trigger (src/knowledge/keys.ts) says when a rule speaks; the
 * signature names one finding exactly, conditions included.
 *   before:assign_device<get_inventory[in_stock]
 *   on_error:assign_device!OUT_OF_STOCK>create_procurement_request>add_blocker>escalate.
 *   on_result:get_employee?pending_info>escalate.      ("." = and stop)
 *   never:complete_onboarding~open_blockers
 */
export function ruleKey(r: Rule): string {
  return coreKey(r) + conditionsKey('if', r.when) + conditionsKey('unless', r.unless)
}

const conditionsKey = (word: string, cs: readonly Condition[] | undefined) =>
  cs?.length ? `|${word}:${cs.map(c => `${c.source}.${c.field}~${c.test}${c.value !== undefined ? `=${String(c.value)}` : ''}${c.arg ? `@${c.arg}` : ''}`).join('&')}` : ''

function coreKey(r: Rule): string {
  switch (r.kind) {
    case 'before': return `before:${r.tool}<${r.calls.map(c => c.tool + (c.when ? `?${c.when}` : '')).join(',')}${r.guard ? `[${r.guard}]` : ''}`
    case 'on_error':
    case 'on_result': return `${triggerOf(r)}>${r.calls.join('>')}${r.stop ? '.' : ''}`
    case 'never': return `${triggerOf(r)}${r.while ? `~${r.while}` : ''}`
  }
}

/**
 * Which of two rules with equal evidence to keep (higher first). A longer response, or a second
 * pre-call, that the runs always made together is what they did; a guard that changed no
 * verdict is noise.
 */
export function preference(r: Rule): number {
  switch (r.kind) {
    case 'before': return 2 * r.calls.length + r.calls.filter(c => c.when).length - (r.guard ? 1 : 0)
    case 'on_error':
    case 'on_result': return r.calls.length + (r.stop ? 1 : 0)
    case 'never': return r.while ? 1 : 0
  }
}

/** A slug for a signature: readable, and unique thanks to a short digest of the signature. */
export function slugOf(signature: string): string {
  const words = signature.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 110).replace(/-+$/, '')
  return `${words}-${sha256Hex(signature).slice(0, 8)}`
}

export {renderRule, triggerOf}
