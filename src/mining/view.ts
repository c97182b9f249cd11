import {InvalidInputError, SplitError} from '../errors/index.js'
import type {Call, MinedTrace, View} from './types.js'

/**
 * What the miner reads of one trace at most (docs/trust.md, "Mining the records of other
 * lanes"). A trace is a record any lane can write: one that passes the schema may hold
 * thousands of actions, as many tools and failures, results of hundreds of kilobytes and a task
 * text as long, and the rules the miner tries grow with the calls, tools and failures of a run
 * (pairs of tools for a missing check, failures × reactions of other runs for foresight). Its
 * actions are read in order until one would go past `actions`, `bytes` (the JSON text of the
 * arguments, results and errors read so far), `tools` distinct tools or `failures` distinct
 * failures (tool and code); that action and the rest are left out. The task text is read up to
 * `text` characters, the workflows up to `workflows` names. A trace of exp's own runs (40 tool
 * calls at most by default; the built-in world has 21 tools, and a run of the example shows at
 * most 11 tools, 2 failures and 4 KB) is read whole.
 */
export const TRACE_BUDGET = {actions: 256, bytes: 256 * 1024, tools: 32, failures: 16, text: 4096, workflows: 64} as const

/** A trace the miner read only part of (TRACE_BUDGET), and what it left out. */
export interface CutTrace {
  id: string
  /** e.g. "read 256 of its 5000 actions" */
  what: string
}

/** What a command says on stderr of a trace the miner read only in part. */
export function cutWarning(c: CutTrace): string {
  return `warning: trace ${c.id} is past the miner's budget of one trace: ${c.what}; the rest is left out (docs/trust.md)`
}

/**
 * Reduce a trace to its calls and outcome, refusing anything the miner must not learn from
 * (docs/mining.md: learning and evaluation data never mix): traces of another split, and verifications that do not belong to the trace.
 * Returns undefined for episodes without a valid verdict (crashes, timeouts): never evidence.
 * A trace past TRACE_BUDGET is read in part; `cut` then says what was left out.
 */
export function viewOf(t: MinedTrace, cut?: (c: CutTrace) => void): View | undefined {
  const v = t.verification.body
  if (t.body.split !== 'train') throw new SplitError('trace', t.id, t.body.split)
  if (v.split !== 'train') throw new SplitError('verification', t.verification.id, v.split)
  if (v.trace !== t.id) throw new InvalidInputError(`verification ${t.verification.id} judges ${v.trace}, not trace ${t.id}`, {trace: t.id, verification: t.verification.id})
  if (!v.valid || t.body.status !== 'completed') return undefined
  const actions = t.body.actions
  const calls: Call[] = []
  const tools = new Set<string>()
  const failed = new Set<string>()
  let bytes = 0
  let stop = ''
  for (const [i, a] of actions.entries()) {
    const failure = a.ok || !a.error ? undefined : JSON.stringify([a.tool, a.error.code])
    bytes += jsonSize(a.tool, Infinity) + jsonSize(a.arguments, TRACE_BUDGET.bytes - bytes) + (a.ok ? jsonSize(a.result, TRACE_BUDGET.bytes - bytes) : jsonSize(a.error?.code, Infinity))
    if (i >= TRACE_BUDGET.actions) stop = `${TRACE_BUDGET.actions} actions`
    else if (bytes > TRACE_BUDGET.bytes) stop = `${TRACE_BUDGET.bytes / 1024} KiB of arguments and results`
    else if (!tools.has(a.tool) && tools.size >= TRACE_BUDGET.tools) stop = `${TRACE_BUDGET.tools} tools`
    else if (failure && !failed.has(failure) && failed.size >= TRACE_BUDGET.failures) stop = `${TRACE_BUDGET.failures} distinct failures`
    if (stop) break
    tools.add(a.tool)
    if (failure) failed.add(failure)
    const c: Call = {i, tool: a.tool, args: a.arguments, ok: a.ok, wrote: a.state_before !== a.state_after}
    if (a.ok) c.result = a.result
    else if (a.error) c.code = a.error.code
    calls.push(c)
  }
  const text = t.body.task.length > TRACE_BUDGET.text ? t.body.task.slice(0, TRACE_BUDGET.text) : t.body.task
  const workflows = (t.body.workflows ?? []).slice(0, TRACE_BUDGET.workflows)
  const left = [
    ...(stop ? [`read ${calls.length} of its ${actions.length} actions (at most ${stop})`] : []),
    ...(text.length < t.body.task.length ? [`${text.length} of the ${t.body.task.length} characters of its task`] : []),
    ...(workflows.length < (t.body.workflows?.length ?? 0) ? [`${workflows.length} of its ${t.body.workflows!.length} workflows`] : []),
  ]
  if (left.length) cut?.({id: t.id, what: left.join(', ')})
  const failures = [...v.invariants.filter(i => !i.passed).map(i => i.id), ...v.constraint_violations.map(c => `constraint:${c.constraint}`), ...(v.collateral.length ? ['collateral'] : [])]
  return {id: t.id, task: t.body.scenario, text, workflows, passed: v.passed, failures, calls}
}

/**
 * The length of a value's JSON text, counted without writing it and without recursion (a
 * record may nest deep), up to `limit`: past it, counting stops (a result of a megabyte costs
 * what the budget left, not its size).
 */
export function jsonSize(value: unknown, limit: number): number {
  let n = 0
  const stack: unknown[] = [value]
  while (stack.length && n <= limit) {
    const x = stack.pop()
    if (typeof x === 'string') n += x.length + 2
    else if (typeof x === 'number' || typeof x === 'boolean') n += String(x).length
    else if (x === null || x === undefined) n += 4
    else if (Array.isArray(x)) {
      n += 1
      for (let k = 0; k < x.length && n <= limit; k++) {
        n += 1
        stack.push(x[k])
      }
    } else if (typeof x === 'object') {
      n += 1
      for (const k in x) {
        if (n > limit) break
        n += k.length + 4
        stack.push((x as Record<string, unknown>)[k])
      }
    }
  }
  return n
}

/** Do two calls agree on every primitive argument they both take? (the same item, the same person) */
export function agrees(a: Call, b: Call): boolean {
  for (const [k, x] of Object.entries(a.args)) {
    const y = b.args[k]
    if (y === undefined || typeof x === 'object' || typeof y === 'object') continue
    if (x !== y) return false
  }
  return true
}

/** Is `tools` an ordered subsequence of `calls`? With `stop`, the last one must end the trace. */
export function followsWith(calls: readonly Call[], tools: readonly string[], stop: boolean): boolean {
  let k = 0
  let last = -1
  for (let x = 0; x < calls.length && k < tools.length; x++) {
    if (calls[x]!.tool === tools[k]) {
      k++
      last = x
    }
  }
  return k === tools.length && (!stop || last === calls.length - 1)
}

/**
 * Index of the first place where `tools` occur back to back in `calls` right after a read
 * (the read that showed the failure coming), or -1.
 */
export function foreseenAt(calls: readonly Call[], tools: readonly string[], writes: ReadonlySet<string>): number {
  outer: for (let x = 1; x + tools.length <= calls.length; x++) {
    if (writes.has(calls[x - 1]!.tool)) continue
    for (let k = 0; k < tools.length; k++) if (calls[x + k]!.tool !== tools[k]) continue outer
    return x
  }
  return -1
}
