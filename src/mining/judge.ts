import type {Rule} from '../knowledge/index.js'
import {appliesAt} from './facts.js'
import {coveredBefore, exhausted, heldAt, reusedAfter, type HeldSource} from './guards.js'
import {reportsState, requiresApproval, resultHolds} from './shapes.js'
import type {Call, View} from './types.js'
import {agrees} from './view.js'
import {callsIndex, callsOf, firstAfter, firstRead, followsFrom, latestOf} from './calls.js'
import type {Vocabulary} from './vocabulary.js'

/** What the predicates know about the whole trace set (learned once per mining run). */
export interface Context {
  vocab: Vocabulary
  held: ReadonlyMap<string, HeldSource>
  /** `tool!CODE` → the tasks where some run had that failure */
  failedIn: ReadonlyMap<string, ReadonlySet<string>>
  /** task → every tool some run of it called */
  calledIn: ReadonlyMap<string, ReadonlySet<string>>
  /** tools that changed the world at least once (the others are reads) */
  writes: ReadonlySet<string>
  /** some task was run more than once: outcomes can be compared within tasks */
  repeated: boolean
  /** task → tool → the successful reads its runs made, in run order (conditions look up reads a run did not make) */
  reads: ReadonlyMap<string, ReadonlyMap<string, readonly Call[]>>
  /** tools that never changed the world, sorted */
  readTools: readonly string[]
  /** `tool.field` → the string values that field of the tool's results took */
  values: ReadonlyMap<string, ReadonlySet<string>>
  /** `check>tool` → tasks where a run acted on a record the check listed instead of calling the tool */
  reusedIn: ReadonlyMap<string, ReadonlySet<string>>
  /** `task>tool` → the arguments of the first call of the tool in a run of the task */
  firstArgs: ReadonlyMap<string, Record<string, unknown>>
  /** the runs this context was learned from, in the miner's order */
  views: readonly View[]
  /** tool → the positions in `views` of the runs that call it, ascending */
  inRun: ReadonlyMap<string, readonly number[]>
  /** task → the positions in `views` of its runs, ascending */
  runsOf: ReadonlyMap<string, readonly number[]>
  /** tool → the tasks some run of which calls it */
  tasksCalling: ReadonlyMap<string, readonly string[]>
}

/**
 * The runs among `views` a rule can have a verdict on (judge is undefined on every other):
 * a rule about a tool speaks only where the tool is called, or, for `If … fails` and `Never`,
 * in the runs of a task where it is (a failure foreseen, a call not made). Judging every rule
 * on every run made the miner's work the product of the two, which any lane can grow: its own
 * tools and runs (docs/trust.md). On another list of runs than the context's, all of them.
 */
export function speaksIn(r: Rule, views: readonly View[], ctx: Context): readonly View[] {
  if (views !== ctx.views) return views
  const list = (m: ReadonlyMap<string, readonly number[]>, t: string) => m.get(t) ?? []
  let at: readonly number[]
  switch (r.kind) {
    case 'before': at = union(list(ctx.inRun, r.tool), list(ctx.inRun, r.calls[0]!.tool)); break
    case 'on_result': at = list(ctx.inRun, r.tool); break
    case 'on_error':
    case 'never': at = (ctx.tasksCalling.get(r.tool) ?? []).flatMap(task => ctx.runsOf.get(task)!).sort((a, b) => a - b); break
  }
  return at.map(x => views[x]!)
}

/** Two ascending lists of positions, merged. */
function union(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const x = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!
    if (out[out.length - 1] !== x) out.push(x)
  }
  return out
}

export type Verdict = 'followed' | 'violated' | undefined

/**
 * Does a rule apply to a run, and did the run follow it? Judged from the calls alone.
 * undefined: the rule's trigger never occurred in this run (not applicable).
 */
export function judge(r: Rule, v: View, ctx: Context): Verdict {
  switch (r.kind) {
    case 'before': return judgeBefore(r, v, ctx)
    case 'on_error': return judgeOnError(r, v, ctx)
    case 'on_result': {
      const hits = callsOf(v.calls, r.tool).filter(c => resultHolds(r.result, c, v, ctx.vocab) && appliesAt(r, v, c.i, c.args, ctx))
      if (!hits.length) return undefined
      return hits.every(h => followsFrom(v.calls, h.i + 1, r.calls, r.stop)) ? 'followed' : 'violated'
    }
    case 'never': return judgeNever(r, v, ctx)
  }
}

function latest(calls: readonly Call[], p: number, ok: (c: Call) => boolean): Call | undefined {
  for (let x = p - 1; x >= 0; x--) if (ok(calls[x]!)) return calls[x]
  return undefined
}

function judgeBefore(r: Extract<Rule, {kind: 'before'}>, v: View, ctx: Context): Verdict {
  // (the calls of each tool from the run's index, calls.ts: every question scanned the whole run)
  const calls = v.calls
  const targets = callsOf(calls, r.tool).filter(c => appliesAt(r, v, c.i, c.args, ctx))
  const check = r.calls[0]!.tool
  if (!targets.length) {
    if (callsIndex(calls).at.has(r.tool)) return undefined
    // a guard may have kept the run from making the call at all: that is following it
    const kept = (c: Call) => c.ok && appliesAt(r, v, c.i, c.args, ctx)
    if (r.guard === 'in_stock') return callsOf(calls, check).some(c => kept(c) && exhausted(c, c.args)) ? 'followed' : undefined
    if (r.guard === 'reuse_open') return callsOf(calls, check).some(c => kept(c) && reusedAfter(calls, c, r.tool)) ? 'followed' : undefined
    return undefined
  }
  for (const t of targets) {
    for (const [k, pre] of r.calls.entries()) {
      if (r.guard === 'each_held') {
        // without the list of held items the run shows nothing about this rule
        const src = ctx.held.get(pre.tool)
        const held = src && heldAt(src, calls, t.i)
        if (!held) return undefined
        const covered = coveredBefore(pre.tool, calls, t.i)
        if ([...held].some(h => !covered.has(h))) return 'violated'
        continue
      }
      if (pre.when === 'policy_requires') {
        const reads = new Set(r.calls.slice(0, k).map(c => c.tool))
        if (!requiresApproval(latestOf(calls, t.i, reads, c => agrees(c, t)))) continue
      }
      if (!latestOf(calls, t.i, [pre.tool], c => agrees(c, t))) return 'violated'
    }
    if (r.guard === 'in_stock') {
      const last = latestOf(calls, t.i, [check], c => c.ok && agrees(c, t))
      if (last && exhausted(last, t.args)) return 'violated'
    }
  }
  return 'followed'
}

function judgeOnError(r: Extract<Rule, {kind: 'on_error'}>, v: View, ctx: Context): Verdict {
  const failed = callsOf(v.calls, r.tool).filter(c => !c.ok && c.code === r.code)
  const hits = failed.filter(c => appliesAt(r, v, c.i, c.args, ctx))
  if (hits.length) return hits.every(h => followsFrom(v.calls, h.i + 1, r.calls, r.stop)) ? 'followed' : 'violated'
  if (failed.length) return undefined
  // a run of a task where this failure happens, reacting without hitting it: it saw the failure coming
  if (!ctx.failedIn.get(`${r.tool}!${r.code}`)?.has(v.task)) return undefined
  // it began reacting after a read (the read that showed it the failure coming), with any call
  // of the reaction: the whole reaction must follow from there
  const first = firstRead(v.calls, ctx.writes)
  const at = first < 0 ? -1 : firstAfter(v.calls, r.calls, first)
  if (at < 0 || !appliesAt(r, v, at, ctx.firstArgs.get(`${v.task}>${r.tool}`) ?? {}, ctx)) return undefined
  return followsFrom(v.calls, at, r.calls, r.stop) ? 'followed' : 'violated'
}

function judgeNever(r: Extract<Rule, {kind: 'never'}>, v: View, ctx: Context): Verdict {
  const plausible = ctx.calledIn.get(v.task)?.has(r.tool) ?? false
  const calls = (callsIndex(v.calls).at.get(r.tool) ?? []).map(x => v.calls[x]!)
  // a call that failed did not happen: only calls that went through break "never"
  const speaking = calls.filter(c => (c.ok || r.while) && appliesAt(r, v, c.i, c.args, ctx))
  if (r.when?.length || r.unless?.length) {
    // calls the conditions leave out are no evidence; a run that never made the call is judged by what it knew at its end
    if (calls.length && !speaking.length) return undefined
    if (!calls.length && !appliesAt(r, v, v.calls.length, ctx.firstArgs.get(`${v.task}>${r.tool}`) ?? {}, ctx)) return undefined
  }
  if (!r.while) return speaking.length ? 'violated' : plausible ? 'followed' : undefined
  const s = r.while
  let seen = false
  for (const c of v.calls) {
    if (c.tool !== r.tool) {
      seen ||= reportsState(s, c) === true
      continue
    }
    if (!appliesAt(r, v, c.i, c.args, ctx)) continue
    const said = reportsState(s, c) ?? (() => {
      const prior = latest(v.calls, c.i, x => x.tool !== r.tool && reportsState(s, x) !== undefined && agrees(x, c))
      return prior ? reportsState(s, prior) : undefined
    })()
    if (said) return 'violated'
  }
  return seen && plausible ? 'followed' : undefined
}
