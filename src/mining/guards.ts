import {argValues, callsIndex, isAt, listedIds, objects} from './calls.js'
import type {Call, View} from './types.js'
import {isRecord} from './vocabulary.js'

/**
 * Generic shapes behind the three guards of the skill language:
 * - `in_stock` ("only assign a model that is in stock"): the check returns a list of items
 *   with counts, and the item the call is about shows nothing left;
 * - `reuse_open` ("reuse an open ticket with the same subject"): the check returns a list of
 *   records, and instead of the call the run acts on one of those records by its id;
 * - `each_held` ("for every item the employee holds"): each pre-call takes an item from a
 *   list in the record of the action's subject (the things held), and must be made for every
 *   item of it.
 */
export {listedIds}

/** The entry of a listing result for the item these arguments name. */
export function itemOf(result: unknown, args: Record<string, unknown>): Record<string, unknown> | undefined {
  const wanted = argValues(args)
  return objects(result).find(o => Object.values(o).some(v => typeof v === 'string' && wanted.has(v)))
}

/** The check's entry for the item these arguments name has counts, and every count is 0 or less. */
export function exhausted(check: Call, args: Record<string, unknown>): boolean {
  const item = itemOf(check.result, args)
  const counts = item ? Object.values(item).filter((v): v is number => typeof v === 'number') : []
  return counts.length > 0 && counts.every(n => n <= 0)
}

/** A later call (not `tool`, not the check) acts on a record the check listed. */
export function reusedAfter(calls: readonly Call[], check: Call, tool: string): boolean {
  // from the run's index: the tools of the later calls naming a listed id (calls.ts namers)
  if (isAt(calls, check)) return callsIndex(calls).namers(check).some(u => u !== tool && u !== check.tool)
  const ids = listedIds(check.result)
  return ids.size > 0 && calls.slice(check.i + 1).some(c => c.tool !== tool && c.tool !== check.tool && [...argValues(c.args)].some(v => ids.has(v)))
}

/** Where the items a tool is called for come from: a list field of an earlier result. */
export interface HeldSource {
  tool: string
  field: string
  /** the element field that names the item; absent for lists of strings */
  key?: string
}

/**
 * For each tool, the list its arguments pick their items from, across all runs. Only item
 * arguments count: those whose value changes between two calls of the tool in one run (the
 * model or system at hand, not the person the whole run is about). The source picking the
 * most distinct items per run wins; ties by name.
 */
export function learnHeld(views: readonly View[]): Map<string, HeldSource> {
  const items = itemArguments(views)
  const score = new Map<string, Map<string, number>>()
  for (const v of views) {
    const picked = new Map<string, Set<string>>()
    // Each call was matched against every list of every earlier result (O(calls²) per run, the
    // lists' sizes on top); now the strings of earlier lists are indexed as the run goes
    // (value → the sources holding it: tool, field, element key) and a call looks its items up.
    const sources = new Map<string, {tool: string; src: string}[]>()
    const seen = new Set<string>()
    const cursor = new Map<string, number>()
    for (const c of v.calls) {
      const keys = items.get(c.tool)
      if (keys) {
        for (const w of new Set([...keys].map(k => c.args[k]).filter((x): x is string => typeof x === 'string'))) {
          const list = sources.get(w)
          if (!list) continue
          // sources only grow: what a call of this tool already picked for this item is picked again
          const key = `${c.tool}\u0000${w}`
          for (let k = cursor.get(key) ?? 0; k < list.length; k++) if (list[k]!.tool !== c.tool) pick(picked, c.tool, list[k]!.src, w)
          cursor.set(key, list.length)
        }
      }
      const r = c
      if (!r.ok || !isRecord(r.result) || typeof r.result.id !== 'string') continue
      const hold = (value: string, src: string[]) => {
        const s = JSON.stringify(src)
        if (seen.has(`${value}\u0000${s}`)) return
        seen.add(`${value}\u0000${s}`)
        let list = sources.get(value)
        if (!list) sources.set(value, (list = []))
        list.push({tool: r.tool, src: s})
      }
      for (const [field, list] of Object.entries(r.result)) {
        if (!Array.isArray(list)) continue
        for (const e of list) {
          if (typeof e === 'string') hold(e, [r.tool, field])
          if (isRecord(e)) for (const [k, x] of Object.entries(e)) if (typeof x === 'string') hold(x, [r.tool, field, k])
        }
      }
    }
    for (const [k, got] of picked) {
      const [tool, src] = JSON.parse(k) as [string, string]
      let m = score.get(tool)
      if (!m) score.set(tool, (m = new Map()))
      m.set(src, (m.get(src) ?? 0) + got.size)
    }
  }
  const out = new Map<string, HeldSource>()
  for (const [tool, m] of [...score].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const best = [...m].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]!
    const [src, field, key] = JSON.parse(best[0]) as [string, string, string?]
    out.set(tool, key === undefined ? {tool: src, field} : {tool: src, field, key})
  }
  return out
}

/** tool → argument names whose value differs between two calls of it within one run. */
function itemArguments(views: readonly View[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const v of views) {
    const first = new Map<string, Record<string, unknown>>()
    for (const c of v.calls) {
      const prev = first.get(c.tool)
      if (!prev) {
        first.set(c.tool, c.args)
        continue
      }
      for (const [k, x] of Object.entries(c.args)) {
        if (typeof x !== 'string' || prev[k] === undefined || prev[k] === x) continue
        let keys = out.get(c.tool)
        if (!keys) out.set(c.tool, (keys = new Set()))
        keys.add(k)
      }
    }
  }
  return out
}

function pick(picked: Map<string, Set<string>>, tool: string, src: string, item: string): void {
  const k = JSON.stringify([tool, src])
  let s = picked.get(k)
  if (!s) picked.set(k, (s = new Set()))
  s.add(item)
}

/**
 * The items held by the subject of the call at position p: the list in the latest earlier
 * record (a result with an `id`) of the source whose id the call names in its arguments.
 */
export function heldAt(src: HeldSource, calls: readonly Call[], p: number): Set<string> | undefined {
  // asked for every rule, pre-call and action of a run: answered once per source and position
  const memo = callsIndex(calls).held
  const key = `${src.tool}\u0000${src.field}\u0000${src.key ?? ''}\u0000${src.key === undefined ? 0 : 1}\u0000${p}`
  if (memo.has(key)) return memo.get(key)
  const held = heldScan(src, calls, p)
  memo.set(key, held)
  return held
}

function heldScan(src: HeldSource, calls: readonly Call[], p: number): Set<string> | undefined {
  const subject = argValues(calls[p]!.args)
  for (let x = p - 1; x >= 0; x--) {
    const c = calls[x]!
    if (c.tool !== src.tool || !c.ok || !isRecord(c.result) || !Array.isArray(c.result[src.field]) || !subject.has(c.result.id as string)) continue
    const list = c.result[src.field] as unknown[]
    return new Set(list.map(e => (src.key === undefined ? e : isRecord(e) ? e[src.key] : undefined)).filter((e): e is string => typeof e === 'string'))
  }
  return undefined
}

/** Every string argument value of the calls of `tool` before position p. */
export function coveredBefore(tool: string, calls: readonly Call[], p: number): Set<string> {
  const ix = callsIndex(calls)
  const key = `${tool}\u0000${p}`
  let out = ix.covered.get(key)
  if (out) return out
  out = new Set<string>()
  for (const x of ix.at.get(tool) ?? []) {
    if (x >= p) break
    for (const v of argValues(calls[x]!.args)) out.add(v)
  }
  ix.covered.set(key, out)
  return out
}
