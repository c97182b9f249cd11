import {isRecord, listHolds, ruleApplies, type Condition, type Rule} from '../knowledge/index.js'
import type {Context} from './judge.js'
import type {Call, View} from './types.js'
import {agrees} from './view.js'
import {before, callsIndex} from './calls.js'

/**
 * What a rule's conditions read, from a run: the latest result of a read (`source`) made
 * before a position about the same item as the call there (their shared arguments agree).
 * A read the run never made is looked up in the other runs of the same task: the world of
 * one task is the same in every run, so what `get_employee` answered there is what it would
 * have answered here (docs/mining.md, "Conditions").
 */
export function lookupAt(v: View, at: number, args: Record<string, unknown>, ctx: Context, linked = false): (source: string) => unknown {
  const fits = (c: Call) => agrees(c, {args} as Call) && (!linked || shares(c.args, args))
  // the calls of the source only (each lookup scanned the run back, then every read of the task)
  const ix = callsIndex(v.calls)
  return source => {
    const mine = ix.at.get(source) ?? []
    for (let k = before(mine, Math.min(at, v.calls.length)); k >= 0; k--) {
      const c = v.calls[mine[k]!]!
      if (c.ok && fits(c)) return c.result
    }
    return taskRead(v.task, source, args, ctx, linked, fits)
  }
}

const taskReadMemo = new WeakMap<Context, Map<string, unknown>>()

/**
 * The first read of `source` by a run of the task that fits the arguments. Asked for every
 * read tool at every position a condition is tried at, it scanned every read of the task:
 * runs × reads of their task. What fits depends only on the primitive arguments: answered once
 * per task, source and those.
 */
function taskRead(task: string, source: string, args: Record<string, unknown>, ctx: Context, linked: boolean, fits: (c: Call) => boolean): unknown {
  let memo = taskReadMemo.get(ctx)
  if (!memo) taskReadMemo.set(ctx, (memo = new Map()))
  const prim = Object.entries(args).filter(([, x]) => x === null || typeof x !== 'object').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const key = JSON.stringify([task, source, linked, prim])
  if (memo.has(key)) return memo.get(key)
  let found: unknown
  for (const c of ctx.reads.get(task)?.get(source) ?? []) {
    if (!fits(c)) continue
    found = c.result
    break
  }
  memo.set(key, found)
  return found
}

/** Do two calls name the same thing (an argument both take, with one value)? */
const shares = (a: Record<string, unknown>, b: Record<string, unknown>) => Object.entries(a).some(([k, x]) => typeof x === 'string' && b[k] === x)

/**
 * Does the rule speak at this position of the run (its when/unless conditions)? Where a
 * condition's read is unknown (no run of the task made it) the run is no evidence either way.
 */
export function appliesAt(r: Rule, v: View, at: number, args: Record<string, unknown>, ctx: Context): boolean {
  if (!r.when?.length && !r.unless?.length) return true
  const look = lookupAt(v, at, args, ctx)
  if ([...(r.when ?? []), ...(r.unless ?? [])].some(c => look(c.source) === undefined)) return false
  return ruleApplies(r, look, args)
}

const ID_LIKE = /^[A-Z]{1,4}-\d+$|@|^\d{4}-\d{2}-\d{2}/
/** Fields whose string values name a category (a few values across all runs, none of them an id, an address or a date). */
export const MAX_CATEGORIES = 6

export function categorical(values: ReadonlySet<string> | undefined): boolean {
  return !!values && values.size > 1 && values.size <= MAX_CATEGORIES && [...values].every(v => !ID_LIKE.test(v))
}

/**
 * The atoms of a condition that hold at a position: for every read about the same thing as the
 * call (they share an argument) whose result is known there (made earlier, or by another run
 * of the task), each top-level field gives `is` (a
 * boolean, or a string of a categorical field), `not_empty` / `empty`, `above 0` (a positive
 * count), and for lists `includes the <arg>` / `excludes …` for each string argument of the call.
 */
export function atomsAt(v: View, at: number, args: Record<string, unknown>, ctx: Context): Condition[] {
  const out: Condition[] = []
  // only reads about the same thing as the call (sharing an argument) can say something about it
  const look = lookupAt(v, at, args, ctx, true)
  // only a read of the task can be known here (made by this run or another run of its task):
  // every read tool of every run was looked up, for every position of every run
  for (const source of readToolsOf(v.task, ctx)) {
    const result = look(source)
    if (!isRecord(result)) continue
    for (const [field, value] of Object.entries(result)) {
      if (typeof value === 'boolean') out.push({source, field, test: 'is', value})
      else if (typeof value === 'string' && categorical(ctx.values.get(`${source}.${field}`))) out.push({source, field, test: 'is', value})
      else if (typeof value === 'number') {
        if (value > 0) out.push({source, field, test: 'above', value: 0})
        continue
      }
      out.push({source, field, test: value === null || value === undefined || value === '' || (Array.isArray(value) && !value.length) ? 'empty' : 'not_empty'})
      if (Array.isArray(value)) for (const [k, a] of Object.entries(args)) if (typeof a === 'string') out.push({source, field, test: listHolds(value, a) ? 'includes' : 'excludes', arg: k})
    }
  }
  return out
}

const taskReads = new WeakMap<Context, Map<string, string[]>>()

/** The read tools some run of the task made, in the order of ctx.readTools (sorted). */
function readToolsOf(task: string, ctx: Context): readonly string[] {
  let memo = taskReads.get(ctx)
  if (!memo) taskReads.set(ctx, (memo = new Map()))
  let tools = memo.get(task)
  if (!tools) memo.set(task, (tools = [...(ctx.reads.get(task)?.keys() ?? [])].sort()))
  return tools
}

/** A stable key of a condition. */
export const atomKey = (c: Condition) => `${c.source}.${c.field}~${c.test}${c.value !== undefined ? `=${String(c.value)}` : ''}${c.arg ? `@${c.arg}` : ''}`

/** Where a rule speaks in a run, ignoring its conditions: the positions and arguments its conditions are read at. */
export function occurrences(r: Rule, v: View, ctx: Context): {at: number; args: Record<string, unknown>}[] {
  const at = (c: Call) => ({at: c.i, args: c.args})
  switch (r.kind) {
    case 'before': {
      const targets = v.calls.filter(c => c.tool === r.tool)
      return targets.length ? targets.map(at) : v.calls.filter(c => c.tool === r.calls[0]!.tool && c.ok).map(at)
    }
    case 'on_error': {
      const hits = v.calls.filter(c => c.tool === r.tool && !c.ok && c.code === r.code)
      // a run that saw the failure coming: the failing call other runs of its task made
      return hits.length ? hits.map(at) : [{at: v.calls.length, args: ctx.firstArgs.get(`${v.task}>${r.tool}`) ?? {}}]
    }
    case 'on_result': return v.calls.filter(c => c.tool === r.tool && c.ok).map(at)
    case 'never': {
      const calls = v.calls.filter(c => c.tool === r.tool)
      // a run that did not make the call: the call other runs of its task made, at its end
      return calls.length ? calls.map(at) : [{at: v.calls.length, args: ctx.firstArgs.get(`${v.task}>${r.tool}`) ?? {}}]
    }
  }
}
