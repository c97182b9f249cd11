import {renderRule, type Guard, type Rule} from '../knowledge/index.js'
import {heldAt, itemOf, linked, reusedAfter} from './guards.js'
import type {Context} from './judge.js'
import {hasApprovalFlag, RESULT_CONDITIONS, reportsState, requiresApproval, resultHolds, STATES} from './shapes.js'
import type {Call, View} from './types.js'
import {isRecord} from './vocabulary.js'

/**
 * Candidate rules, proposed from what passing runs did (and, for `Never`, from what failing
 * runs did). Candidates are only proposals: score.ts judges each against every run.
 * Returned without duplicates, in the order of their rendered line.
 */
export function candidates(views: readonly View[], ctx: Context, maxCalls: number): Rule[] {
  const out = new Map<string, Rule>()
  const add = (r: Rule) => out.set(renderRule(r), r)
  const byTask = groupBy(views, v => v.task)
  for (const v of views) {
    const firsts = new Set<string>()
    for (const c of v.calls) {
      const key = c.ok ? '' : `${c.tool}!${c.code}`
      if (!c.ok && c.code && !firsts.has(key)) {
        firsts.add(key)
        if (v.passed) responses(v.calls, c.i + 1, maxCalls, (calls, stop) => add({kind: 'on_error', tool: c.tool, code: c.code!, calls, stop}))
        else for (const m of byTask.get(v.task)!) if (m.passed && !m.calls.some(x => x.tool === c.tool && x.code === c.code)) foreseen(m, v, ctx, maxCalls, (calls, stop) => add({kind: 'on_error', tool: c.tool, code: c.code!, calls, stop}))
      }
      if (v.passed && c.ok) {
        for (const cond of RESULT_CONDITIONS) {
          if (firsts.has(`${c.tool}?${cond}`) || !resultHolds(cond, c, v, ctx.vocab)) continue
          firsts.add(`${c.tool}?${cond}`)
          responses(v.calls, c.i + 1, maxCalls, (calls, stop) => add({kind: 'on_result', tool: c.tool, result: cond, calls, stop}))
        }
      }
      if (!ctx.writes.has(c.tool)) continue
      for (const s of STATES) if (reportsState(s, c) === true) add({kind: 'never', tool: c.tool, while: s})
      if (!v.passed) add({kind: 'never', tool: c.tool})
    }
    if (v.passed) for (const r of checks(v, ctx)) add(r)
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, r]) => r)
}

/** Response sequences: the next 1..max calls, with `and stop` when they end the run. */
function responses(calls: readonly Call[], from: number, max: number, emit: (calls: string[], stop: boolean) => void): void {
  const rest = calls.slice(from).map(c => c.tool)
  for (let n = 1; n <= Math.min(max, rest.length); n++) {
    emit(rest.slice(0, n), false)
    if (n === rest.length) emit(rest.slice(0, n), true)
  }
}

/**
 * What a passing run of the same task did that the failing run never did: actions of its own,
 * back to back, right after a read (the read that showed it the failure coming).
 */
function foreseen(pass: View, fail: View, ctx: Context, max: number, emit: (calls: string[], stop: boolean) => void): void {
  const failed = new Set(fail.calls.map(c => c.tool))
  const tools = pass.calls.map(c => c.tool)
  // only actions count as a reaction: a read the failing run skipped is no response to anything
  const own = (x: number) => !failed.has(tools[x]!) && pass.calls[x]!.wrote
  for (let a = 1; a < tools.length; a++) {
    if (ctx.writes.has(tools[a - 1]!)) continue
    for (let n = 1; n <= max && a + n <= tools.length && own(a + n - 1); n++) {
      emit(tools.slice(a, a + n), false)
      if (a + n === tools.length) emit(tools.slice(a, a + n), true)
    }
  }
}

/**
 * `Before T, call A`: a missing check is a read (a call that never changes the world) that a
 * passing run made before its first T, where T is an action. Actions appear as pre-calls only
 * in the two shapes the language gives them: conditional on the read's answer
 * (`when the policy requires it`) or once per held item (`for every item the employee holds`).
 * Guard variants are added when the data shows their shape.
 */
function checks(v: View, ctx: Context): Rule[] {
  const out: Rule[] = []
  const firstAt = new Map<string, number>()
  for (const c of v.calls) if (!firstAt.has(c.tool)) firstAt.set(c.tool, c.i)
  const read = (t: string) => !ctx.writes.has(t)
  for (const [tool, at] of firstAt) {
    if (read(tool)) continue
    const prior = [...firstAt].filter(([t, i]) => i < at && t !== tool).map(([t]) => t)
    for (const a of prior) {
      const later = prior.filter(b => firstAt.get(b)! > firstAt.get(a)!)
      // a read that shares nothing with the action (not its item, not its subject) cannot have informed it
      const informs = v.calls.some(c => c.tool === a && c.i < at && v.calls.some(t => t.tool === tool && t.i > c.i && linked(c, t)))
      if (read(a) && informs) {
        for (const guard of guardsFor(v, tool, a)) out.push(guard ? {kind: 'before', tool, calls: [{tool: a}], guard} : {kind: 'before', tool, calls: [{tool: a}]})
        // the conditional call is the one the run made between the read that asked for it and the action
        if (v.calls.some(c => c.tool === a && hasApprovalFlag(c))) for (const b of later) if (asked(v.calls, a, b, tool)) out.push({kind: 'before', tool, calls: [{tool: a}, {tool: b, when: 'policy_requires'}]})
      }
      // the run must show the items it held: a list the pre-call picks from, there at the action
      const holds = (t: string) => !read(t) && ctx.held.has(t) && heldAt(ctx.held.get(t)!, v.calls, at) !== undefined
      if (holds(a)) {
        out.push({kind: 'before', tool, calls: [{tool: a}], guard: 'each_held'})
        for (const b of later) if (holds(b)) out.push({kind: 'before', tool, calls: [{tool: a}, {tool: b}], guard: 'each_held'})
      }
    }
  }
  // a run that skipped the action because the check offered a record to reuse instead
  const missing = [...(ctx.calledIn.get(v.task) ?? [])].filter(t => !firstAt.has(t) && !read(t))
  for (const c of v.calls) for (const t of missing) if (read(c.tool) && c.ok && reusedAfter(v.calls, c, t)) out.push({kind: 'before', tool: t, calls: [{tool: c.tool}], guard: 'reuse_open'})
  return out
}

/** Read `a` answered `requires_approval: true`, then `b`, then the action, back to back. */
function asked(calls: readonly Call[], a: string, b: string, tool: string): boolean {
  return calls.some((c, k) => c.tool === a && requiresApproval(c) && calls[k + 1]?.tool === b && calls[k + 2]?.tool === tool)
}

function guardsFor(v: View, tool: string, check: string): (Guard | undefined)[] {
  const out: (Guard | undefined)[] = [undefined]
  const made = v.calls.filter(c => c.tool === check && c.ok)
  const targets = v.calls.filter(c => c.tool === tool)
  if (made.some(c => hasCounts(c.result) && targets.some(t => t.i > c.i && itemOf(c.result, t.args)))) out.push('in_stock')
  if (made.some(c => reusedAfter(v.calls, c, tool))) out.push('reuse_open')
  return out
}

/** A result listing records that carry counts (how many of each are left). */
function hasCounts(result: unknown): boolean {
  return isRecord(result) && Object.values(result).some(l => Array.isArray(l) && l.some(e => isRecord(e) && Object.values(e).some(x => typeof x === 'number')))
}

export function groupBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>()
  for (const x of xs) {
    const k = key(x)
    let list = m.get(k)
    if (!list) m.set(k, (list = []))
    list.push(x)
  }
  return m
}
