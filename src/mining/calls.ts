import type {Call, View} from './types.js'
import {isRecord} from './vocabulary.js'

/**
 * What the predicates ask of one run's calls again and again, computed once per run (the
 * calls array of a View). Before, each question scanned the run anew: which later call names
 * a record a check listed (`reusedAfter`, asked for every check, tool and rule: O(calls²) per
 * question), the latest earlier call of a tool, the held items at a position. A run of a few
 * hundred calls made the miner's work grow with the cube of its length (docs/trust.md,
 * "Mining the records of other lanes").
 */
export interface CallsIndex {
  /** tool → the positions of its calls, ascending */
  readonly at: ReadonlyMap<string, readonly number[]>
  /** every string a call names or gets back (guards.ts valuesOf), per position */
  valuesOf(c: Call): ReadonlySet<string>
  /** the strings of the records a call's result lists (the values of their fields), per position */
  listedValues(c: Call): ReadonlySet<string>
  /**
   * Up to three distinct tools of the later calls that name a record the call's result lists
   * (an argument value equal to one of its ids): enough to answer `reusedAfter` for any tool.
   */
  namers(c: Call): readonly string[]
  /** memo of `heldAt`, by source and position */
  readonly held: Map<string, Set<string> | undefined>
  /** memo of `coveredBefore`, by tool and position */
  readonly covered: Map<string, Set<string>>
}

const indexes = new WeakMap<readonly Call[], CallsIndex>()

/** The index of a run's calls (a call's `i` is its position: views are built so). */
export function callsIndex(calls: readonly Call[]): CallsIndex {
  let ix = indexes.get(calls)
  if (!ix) indexes.set(calls, (ix = build(calls)))
  return ix
}

/** Is `c` the call at its position of `calls` (the index answers only for those)? */
export const isAt = (calls: readonly Call[], c: Call) => calls[c.i] === c

function build(calls: readonly Call[]): CallsIndex {
  const at = new Map<string, number[]>()
  for (const c of calls) {
    let list = at.get(c.tool)
    if (!list) at.set(c.tool, (list = []))
    list.push(c.i)
  }
  const values: (Set<string> | undefined)[] = []
  const listed: (Set<string> | undefined)[] = []
  let namers: string[][] | undefined
  return {
    at,
    valuesOf: c => (values[c.i] ??= valuesOfCall(c)),
    listedValues: c => (listed[c.i] ??= listedValuesOf(c.result)),
    namers: c => (namers ??= namersOf(calls))[c.i]!,
    held: new Map(),
    covered: new Map(),
  }
}

/** Records a result lists: the objects in its list fields. */
export const objects = (x: unknown): Record<string, unknown>[] =>
  isRecord(x) ? Object.values(x).flatMap(v => (Array.isArray(v) ? v.filter(isRecord) : [])) : []

export const argValues = (args: Record<string, unknown>) => new Set(Object.values(args).filter((v): v is string => typeof v === 'string'))

function valuesOfCall(c: Call): Set<string> {
  const out = argValues(c.args)
  if (isRecord(c.result)) for (const v of Object.values(c.result)) if (typeof v === 'string') out.add(v)
  for (const o of objects(c.result)) for (const v of Object.values(o)) if (typeof v === 'string') out.add(v)
  return out
}

function listedValuesOf(result: unknown): Set<string> {
  const out = new Set<string>()
  for (const o of objects(result)) for (const v of Object.values(o)) if (typeof v === 'string') out.add(v)
  return out
}

/** Ids (fields named `id` or `*_id`) of the records a result lists. */
export function listedIds(result: unknown): Set<string> {
  const ids = new Set<string>()
  for (const o of objects(result)) for (const [k, v] of Object.entries(o)) if ((k === 'id' || k.endsWith('_id')) && typeof v === 'string') ids.add(v)
  return ids
}

/**
 * For every position, up to three distinct tools of the later calls naming one of the ids its
 * result lists, in one pass from the end: each string value keeps the first three tools
 * (from the end) of the calls naming it. Three suffice: `reusedAfter(check, tool)` asks for one
 * other than `tool` and the check's own.
 */
function namersOf(calls: readonly Call[]): string[][] {
  const out: string[][] = new Array(calls.length)
  const byValue = new Map<string, string[]>()
  for (let p = calls.length - 1; p >= 0; p--) {
    const c = calls[p]!
    const found: string[] = []
    for (const id of listedIds(c.result)) {
      for (const u of byValue.get(id) ?? []) if (found.length < 3 && !found.includes(u)) found.push(u)
      if (found.length >= 3) break
    }
    out[p] = found
    for (const v of argValues(c.args)) {
      let list = byValue.get(v)
      if (!list) byValue.set(v, (list = []))
      if (list.length < 3 && !list.includes(c.tool)) list.push(c.tool)
    }
  }
  return out
}

/** The greatest position in `list` (ascending) below `p`, as an index into `list`, or -1. */
export function before(list: readonly number[], p: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (list[mid]! < p) lo = mid + 1
    else hi = mid
  }
  return lo - 1
}

/**
 * Is `tools` an ordered subsequence of the calls from position `from` on? With `stop`, the
 * last one must end the trace. The same greedy match as view.ts `followsWith`, by binary
 * search in each tool's positions instead of a scan of the run.
 */
export function followsFrom(calls: readonly Call[], from: number, tools: readonly string[], stop: boolean): boolean {
  // (as for the slice from `from`: no tools follow anywhere, and "stop" holds only where nothing is left)
  if (!tools.length) return !stop || from >= calls.length
  const ix = callsIndex(calls)
  let last = -1
  let p = from
  for (const t of tools) {
    const list = ix.at.get(t)
    if (!list) return false
    const k = before(list, p) + 1
    if (k >= list.length) return false
    last = list[k]!
    p = last + 1
  }
  return !stop || last === calls.length - 1
}

const firstReads = new WeakMap<readonly Call[], Map<ReadonlySet<string>, number>>()

/** The position of the run's first read (a call of a tool that never wrote), or -1. */
export function firstRead(calls: readonly Call[], writes: ReadonlySet<string>): number {
  let memo = firstReads.get(calls)
  if (!memo) firstReads.set(calls, (memo = new Map()))
  let first = memo.get(writes)
  if (first === undefined) memo.set(writes, (first = calls.findIndex(c => !writes.has(c.tool))))
  return first
}

/** The first position after `p` of a call of one of `tools`, or -1. */
export function firstAfter(calls: readonly Call[], tools: readonly string[], p: number): number {
  const ix = callsIndex(calls)
  let best = -1
  for (const t of tools) {
    const list = ix.at.get(t)
    if (!list) continue
    const k = before(list, p + 1) + 1
    if (k < list.length && (best < 0 || list[k]! < best)) best = list[k]!
  }
  return best
}

/** The latest call before position `p` of one of `tools` for which `ok` holds (a scan of those tools' calls only). */
export function latestOf(calls: readonly Call[], p: number, tools: Iterable<string>, ok: (c: Call) => boolean): Call | undefined {
  const ix = callsIndex(calls)
  let best: Call | undefined
  for (const t of tools) {
    const list = ix.at.get(t)
    if (!list) continue
    for (let k = before(list, p); k >= 0 && (!best || list[k]! > best.i); k--) {
      const c = calls[list[k]!]!
      if (!ok(c)) continue
      best = c
      break
    }
  }
  return best
}

/** The calls of a tool, in order. */
export function callsOf(calls: readonly Call[], tool: string): Call[] {
  return (callsIndex(calls).at.get(tool) ?? []).map(x => calls[x]!)
}

const nextWrites = new WeakMap<readonly Call[], Map<ReadonlySet<string>, number[]>>()

/** The position of the first call after `p` of a tool that writes, or -1. */
export function nextWrite(calls: readonly Call[], writes: ReadonlySet<string>, p: number): number {
  let memo = nextWrites.get(calls)
  if (!memo) nextWrites.set(calls, (memo = new Map()))
  let next = memo.get(writes)
  if (!next) {
    next = new Array<number>(calls.length + 1).fill(-1)
    for (let x = calls.length - 1; x >= 0; x--) next[x] = writes.has(calls[x]!.tool) ? x : next[x + 1]!
    memo.set(writes, next)
  }
  return p + 1 < calls.length ? next[p + 1]! : -1
}

const byIds = new WeakMap<readonly View[], Map<string, View>>()

/** id → run, once per list of runs (built again for every rule explained or separated: rules × runs). */
export function byIdOf(views: readonly View[]): ReadonlyMap<string, View> {
  let m = byIds.get(views)
  if (!m) byIds.set(views, (m = new Map(views.map(v => [v.id, v]))))
  return m
}
