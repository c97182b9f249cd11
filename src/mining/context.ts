import {learnHeld, reusedAfter} from './guards.js'
import type {Context} from './judge.js'
import type {Call, MineOptions, View} from './types.js'
import {isRecord, Vocabulary} from './vocabulary.js'

/** Learn, once per mining run, what the predicates need to know about the whole trace set. */
export function contextOf(views: readonly View[], tools: MineOptions['tools'] = []): Context {
  const failedIn = new Map<string, Set<string>>()
  const calledIn = new Map<string, Set<string>>()
  const writes = new Set<string>()
  for (const v of views) {
    let called = calledIn.get(v.task)
    if (!called) calledIn.set(v.task, (called = new Set()))
    for (const c of v.calls) {
      called.add(c.tool)
      if (c.wrote) writes.add(c.tool)
      if (c.ok || !c.code) continue
      const k = `${c.tool}!${c.code}`
      let tasks = failedIn.get(k)
      if (!tasks) failedIn.set(k, (tasks = new Set()))
      tasks.add(v.task)
    }
  }
  // what the reads of each task answered (conditions look up reads a run did not make), and
  // which string values each field of a read takes across all runs (categories)
  const reads = new Map<string, Call[]>()
  const values = new Map<string, Set<string>>()
  for (const v of views) {
    for (const c of v.calls) {
      if (writes.has(c.tool) || !c.ok) continue
      let list = reads.get(v.task)
      if (!list) reads.set(v.task, (list = []))
      list.push(c)
      if (!isRecord(c.result)) continue
      for (const [k, x] of Object.entries(c.result)) {
        if (typeof x !== 'string') continue
        let set = values.get(`${c.tool}.${k}`)
        if (!set) values.set(`${c.tool}.${k}`, (set = new Set()))
        set.add(x)
      }
    }
  }
  // checks whose listed record a run of the task acted on instead of making the call (reuse)
  const reusedIn = new Map<string, Set<string>>()
  for (const v of views) {
    const made = new Set(v.calls.map(c => c.tool))
    const missing = [...(calledIn.get(v.task) ?? [])].filter(t => !made.has(t) && writes.has(t))
    for (const c of v.calls) {
      if (!c.ok || writes.has(c.tool)) continue
      for (const t of missing) {
        if (!reusedAfter(v.calls, c, t)) continue
        let tasks = reusedIn.get(`${c.tool}>${t}`)
        if (!tasks) reusedIn.set(`${c.tool}>${t}`, (tasks = new Set()))
        tasks.add(v.task)
      }
    }
  }
  const firstArgs = new Map<string, Record<string, unknown>>()
  for (const v of views) for (const c of v.calls) if (!firstArgs.has(`${v.task}>${c.tool}`)) firstArgs.set(`${v.task}>${c.tool}`, c.args)
  const readTools = [...new Set(views.flatMap(v => v.calls.map(c => c.tool)))].filter(t => !writes.has(t)).sort()
  return {vocab: Vocabulary.learn(views, tools), held: learnHeld(views), failedIn, calledIn, writes, repeated: views.length > new Set(views.map(v => v.task)).size, reads, readTools, values, reusedIn, firstArgs}
}
