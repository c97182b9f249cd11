import {renderRule, type Guard, type Rule} from '../knowledge/index.js'
import {argValues, callsIndex} from './calls.js'
import {heldAt, reusedAfter} from './guards.js'
import type {Context} from './judge.js'
import {hasApprovalFlag, RESULT_CONDITIONS, reportsState, requiresApproval, resultHolds, STATES} from './shapes.js'
import type {Steps} from './steps.js'
import type {Call, View} from './types.js'
import {isRecord} from './vocabulary.js'

/**
 * Candidate rules, proposed from what passing runs did (and, for `Never`, from what failing
 * runs did). Candidates are only proposals: score.ts judges each against every run.
 * Returned without duplicates, in the order of their rendered line.
 */
export function* candidateSteps(views: readonly View[], ctx: Context, maxCalls: number): Steps<Rule[]> {
  const out = new Map<string, Rule>()
  const add = (r: Rule) => out.set(renderRule(r), r)
  const byTask = groupBy(views, v => v.task)
  // the failures of each passing run (tool!code), for foresight below
  const failedBy = new Map<View, Set<string>>()
  for (const m of views) if (m.passed) failedBy.set(m, new Set(m.calls.filter(x => !x.ok && x.code).map(x => `${x.tool}!${x.code}`)))
  for (const v of views) {
    const firsts = new Set<string>()
    // Foresight: what each passing run of the task did that this failing run never did. It was
    // worked out again for every failure of the run, and each passing run was scanned for the
    // failure each time (failures × runs of the task × calls); now once per pair of runs.
    const errors: Call[] = []
    for (const c of v.calls) {
      const key = c.ok ? '' : `${c.tool}!${c.code}`
      if (!c.ok && c.code && !firsts.has(key)) {
        firsts.add(key)
        if (v.passed) responses(v.calls, c.i + 1, maxCalls, (calls, stop) => add({kind: 'on_error', tool: c.tool, code: c.code!, calls, stop}))
        else errors.push(c)
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
    if (errors.length) {
      for (const m of byTask.get(v.task)!) {
        if (!m.passed) continue
        const hit = failedBy.get(m)!
        const unseen = errors.filter(c => !hit.has(`${c.tool}!${c.code}`))
        if (!unseen.length) continue
        const seqs: [string[], boolean][] = []
        foreseen(m, v, ctx, maxCalls, (calls, stop) => seqs.push([calls, stop]))
        for (const c of unseen) for (const [calls, stop] of seqs) add({kind: 'on_error', tool: c.tool, code: c.code!, calls, stop})
        yield
      }
    }
    yield
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, r]) => r)
}

/** Response sequences: the next 1..max calls, with `and stop` when they end the run. */
function responses(calls: readonly Call[], from: number, max: number, emit: (calls: string[], stop: boolean) => void): void {
  // only the next `max` calls matter (the whole rest of the run was copied, for every failure and result)
  const rest = calls.slice(from, from + max).map(c => c.tool)
  const left = Math.max(0, calls.length - from)
  for (let n = 1; n <= Math.min(max, left); n++) {
    emit(rest.slice(0, n), false)
    if (n === left) emit(rest.slice(0, n), true)
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
 *
 * Every pair of tools (T, A) is a candidate, and each was judged by scanning the run again:
 * whether A informs T (calls of A × calls of T), the calls between them for each later B, the
 * guards (checks × actions × listed records), the held items: O(tools³ × calls) per run. Now
 * what those answers need is gathered once per run (calls.ts) or per action T, and the pairs
 * are enumerated with their answers at hand. (Four runs of 1,000 calls, each call of a tool
 * of its own: 20 CPU seconds before, 0.3 after, the budget of one trace aside.)
 */
function checks(v: View, ctx: Context): Rule[] {
  const out: Rule[] = []
  const ix = callsIndex(v.calls)
  const firstAt = new Map<string, number>()
  for (const c of v.calls) if (!firstAt.has(c.tool)) firstAt.set(c.tool, c.i)
  // tools in the order of their first call: the tools called first before T are those ahead of it
  const order = [...firstAt]
  const read = (t: string) => !ctx.writes.has(t)
  // `A, B, T` back to back, A answering requires_approval: true (asked)
  const asks = new Map<string, Set<string>>()
  for (let k = 0; k + 2 < v.calls.length; k++) {
    const c = v.calls[k]!
    if (!requiresApproval(c)) continue
    const key = `${c.tool}\u0000${v.calls[k + 2]!.tool}`
    let bs = asks.get(key)
    if (!bs) asks.set(key, (bs = new Set()))
    bs.add(v.calls[k + 1]!.tool)
  }
  const flagged = new Set(v.calls.filter(hasApprovalFlag).map(c => c.tool))
  for (const [p, [tool, at]] of order.entries()) {
    if (read(tool)) continue
    const prior = order.slice(0, p)
    // a read that shares nothing with the action (not its item, not its subject) cannot have informed it
    const wanted = new Set<string>()
    for (const x of ix.at.get(tool)!) for (const w of argValues(v.calls[x]!.args)) wanted.add(w)
    const informs = new Set<string>()
    for (let x = 0; x < at && wanted.size; x++) {
      const c = v.calls[x]!
      if (informs.has(c.tool) || !read(c.tool)) continue
      const seen = ix.valuesOf(c)
      for (const w of wanted) {
        if (!seen.has(w)) continue
        informs.add(c.tool)
        break
      }
    }
    // the run must show the items it held: a list the pre-call picks from, there at the action
    const holds = (t: string) => !read(t) && ctx.held.has(t) && heldAt(ctx.held.get(t)!, v.calls, at) !== undefined
    const holders = prior.filter(([t]) => holds(t)).map(([t]) => t)
    const holding = new Set(holders)
    for (const [a, atA] of prior) {
      if (read(a) && informs.has(a)) {
        for (const guard of guardsFor(v, tool, a)) out.push(guard ? {kind: 'before', tool, calls: [{tool: a}], guard} : {kind: 'before', tool, calls: [{tool: a}]})
        // the conditional call is the one the run made between the read that asked for it and the action
        if (flagged.has(a)) {
          for (const b of asks.get(`${a}\u0000${tool}`) ?? []) {
            const atB = firstAt.get(b)
            if (b !== tool && atB !== undefined && atB > atA && atB < at) out.push({kind: 'before', tool, calls: [{tool: a}, {tool: b, when: 'policy_requires'}]})
          }
        }
      }
      if (holding.has(a)) {
        out.push({kind: 'before', tool, calls: [{tool: a}], guard: 'each_held'})
        for (const b of holders) if (firstAt.get(b)! > atA) out.push({kind: 'before', tool, calls: [{tool: a}, {tool: b}], guard: 'each_held'})
      }
    }
  }
  // a run that skipped the action because the check offered a record to reuse instead
  // (only a check whose listed records a later call names: calls.ts namers)
  const reusing = v.calls.filter(c => read(c.tool) && c.ok && ix.namers(c).some(u => u !== c.tool))
  const missing = reusing.length ? [...(ctx.calledIn.get(v.task) ?? [])].filter(t => !firstAt.has(t) && !read(t)) : []
  for (const c of reusing) for (const t of missing) if (reusedAfter(v.calls, c, t)) out.push({kind: 'before', tool: t, calls: [{tool: c.tool}], guard: 'reuse_open'})
  return out
}

function guardsFor(v: View, tool: string, check: string): (Guard | undefined)[] {
  const out: (Guard | undefined)[] = [undefined]
  const ix = callsIndex(v.calls)
  const made = ix.at.get(check)!.map(x => v.calls[x]!).filter(c => c.ok)
  const targets = ix.at.get(tool)!.map(x => v.calls[x]!)
  // the listed entry for the item of a later call (itemOf), from the strings of the listed records
  const names = (c: Call, t: Call) => {
    const listed = ix.listedValues(c)
    return Object.values(t.args).some(x => typeof x === 'string' && listed.has(x))
  }
  if (made.some(c => hasCounts(c.result) && targets.some(t => t.i > c.i && names(c, t)))) out.push('in_stock')
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
