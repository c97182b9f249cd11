import {matchesWhere} from './match.js'
import type {Constraint, GradedAction, ToolPattern, Verdict} from './types.js'

/** Trajectory constraints: properties of the sequence of calls, not of the final state. */
type Violation = Verdict['constraint_violations'][number]

const pattern = (p: string | ToolPattern): ToolPattern => (typeof p === 'string' ? {tool: p} : p)
const fits = (a: GradedAction, p: ToolPattern) => a.tool === p.tool && matchesWhere(a.arguments, p.arguments)
const label = (p: ToolPattern) => (p.arguments ? `${p.tool} ${JSON.stringify(p.arguments)}` : p.tool)

/** The violation of one constraint, or undefined when it holds. */
export function checkConstraint(c: Constraint, actions: readonly GradedAction[]): Violation | undefined {
  const v = (message: string): Violation => ({constraint: c.id, message})
  if ('before' in c) {
    const {first, then} = c.before
    const bad: number[] = []
    let seen = false
    actions.forEach((a, i) => {
      if (a.tool === first) seen = true
      else if (a.tool === then && !seen) bad.push(i)
    })
    return bad.length ? v(`${then} (call ${bad.map(i => `#${i}`).join(', ')}) was not preceded by ${first}`) : undefined
  }
  if ('never' in c) {
    const p = pattern(c.never)
    const hits = actions.flatMap((a, i) => (fits(a, p) ? [i] : []))
    return hits.length ? v(`${label(p)} must never be called, but was (call ${hits.map(i => `#${i}`).join(', ')})`) : undefined
  }
  if ('called' in c) {
    const p = pattern(c.called)
    const min = typeof c.called === 'string' ? 1 : (c.called.min ?? 1)
    const n = actions.filter(a => fits(a, p)).length
    return n < min ? v(`${label(p)} must be called at least ${min} time(s), was called ${n}`) : undefined
  }
  if ('max_calls' in c) {
    const {tool, count} = typeof c.max_calls === 'number' ? {tool: undefined, count: c.max_calls} : c.max_calls
    const n = tool ? actions.filter(a => a.tool === tool).length : actions.length
    return n > count ? v(`${tool ?? 'tool'} calls: ${n}, at most ${count} allowed`) : undefined
  }
  const n = actions.filter(a => !a.ok).length
  return n > c.max_errors ? v(`${n} failed calls, at most ${c.max_errors} allowed`) : undefined
}

export function checkConstraints(constraints: readonly Constraint[], actions: readonly GradedAction[]): Violation[] {
  const out: Violation[] = []
  for (const c of constraints) {
    const v = checkConstraint(c, actions)
    if (v) out.push(v)
  }
  return out
}
