import type {Condition, Rule} from './types.js'
import {GUARDS, RESULTS, STATES, WHEN} from './vocabulary.js'

/**
 * The one canonical line of a rule. `parseRule(renderRule(r))` gives `r` back exactly, so the
 * rendered line is also the rule's identity (`ruleKey`).
 *
 *   Before `T`, call CALLS[GUARD][, only when CONDS][, unless CONDS].
 *   If `T` fails with `CODE`[ and CONDS], call SEQ[ and stop][, unless CONDS].
 *   If `T` returns RESULT[ and CONDS], call SEQ[ and stop][, unless CONDS].
 *   Never call `T`[ while STATE][ when CONDS][ unless CONDS].
 */
export const tick = (t: string | number | boolean) => `\`${String(t)}\``

function joinAnd(parts: string[]): string {
  return parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`
}

export function renderCondition(c: Condition): string {
  const what = `${tick(c.source)} shows ${tick(c.field)}`
  switch (c.test) {
    case 'is': return `${what} is ${tick(c.value!)}`
    case 'is_not': return `${what} is not ${tick(c.value!)}`
    case 'empty': return `${what} is empty`
    case 'not_empty': return `${what} is not empty`
    case 'includes': return `${what} includes the ${tick(c.arg!)}`
    case 'excludes': return `${what} does not include the ${tick(c.arg!)}`
    case 'above': return `${what} is above ${tick(c.value!)}`
  }
}

export const renderConditions = (cs: readonly Condition[]) => cs.map(renderCondition).join(' and ')

export function renderRule(r: Rule): string {
  const unless = r.unless?.length ? `, unless ${renderConditions(r.unless)}` : ''
  const also = r.when?.length ? ` and ${renderConditions(r.when)}` : ''
  switch (r.kind) {
    case 'before': {
      const calls = joinAnd(r.calls.map(c => tick(c.tool) + (c.when ? ` when ${WHEN[c.when]}` : '')))
      const when = r.when?.length ? `, only when ${renderConditions(r.when)}` : ''
      return `Before ${tick(r.tool)}, call ${calls}${r.guard ? GUARDS[r.guard] : ''}${when}${unless}.`
    }
    case 'on_error':
      return `If ${tick(r.tool)} fails with ${tick(r.code)}${also}, call ${r.calls.map(tick).join(', then ')}${r.stop ? ' and stop' : ''}${unless}.`
    case 'on_result':
      return `If ${tick(r.tool)} returns ${RESULTS[r.result]}${also}, call ${r.calls.map(tick).join(', then ')}${r.stop ? ' and stop' : ''}${unless}.`
    case 'never': {
      const when = r.when?.length ? ` when ${renderConditions(r.when)}` : ''
      const not = r.unless?.length ? ` unless ${renderConditions(r.unless)}` : ''
      return `Never call ${tick(r.tool)}${r.while ? ` while ${STATES[r.while]}` : ''}${when}${not}.`
    }
  }
}
