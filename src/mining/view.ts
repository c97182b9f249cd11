import {InvalidInputError, SplitError} from '../errors/index.js'
import type {Call, MinedTrace, View} from './types.js'

/**
 * Reduce a trace to its calls and outcome, refusing anything the miner must not learn from
 * (docs/mining.md: learning and evaluation data never mix): traces of another split, and verifications that do not belong to the trace.
 * Returns undefined for episodes without a valid verdict (crashes, timeouts): never evidence.
 */
export function viewOf(t: MinedTrace): View | undefined {
  const v = t.verification.body
  if (t.body.split !== 'train') throw new SplitError('trace', t.id, t.body.split)
  if (v.split !== 'train') throw new SplitError('verification', t.verification.id, v.split)
  if (v.trace !== t.id) throw new InvalidInputError(`verification ${t.verification.id} judges ${v.trace}, not trace ${t.id}`, {trace: t.id, verification: t.verification.id})
  if (!v.valid || t.body.status !== 'completed') return undefined
  const calls: Call[] = t.body.actions.map((a, i) => {
    const c: Call = {i, tool: a.tool, args: a.arguments, ok: a.ok, wrote: a.state_before !== a.state_after}
    if (a.ok) c.result = a.result
    else if (a.error) c.code = a.error.code
    return c
  })
  const failures = [...v.invariants.filter(i => !i.passed).map(i => i.id), ...v.constraint_violations.map(c => `constraint:${c.constraint}`), ...(v.collateral.length ? ['collateral'] : [])]
  return {id: t.id, task: t.body.scenario, text: t.body.task, workflows: t.body.workflows ?? [], passed: v.passed, failures, calls}
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
