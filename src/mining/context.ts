import {callsIndex} from './calls.js'
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
  const reads = new Map<string, Map<string, Call[]>>()
  const values = new Map<string, Set<string>>()
  for (const v of views) {
    for (const c of v.calls) {
      if (writes.has(c.tool) || !c.ok) continue
      let byTool = reads.get(v.task)
      if (!byTool) reads.set(v.task, (byTool = new Map()))
      let list = byTool.get(c.tool)
      if (!list) byTool.set(c.tool, (list = []))
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
    let missing: string[] | undefined
    for (const c of v.calls) {
      if (!c.ok || writes.has(c.tool)) continue
      // only a check whose listed records later calls name can have been reused (calls.ts namers):
      // the tools the task called and this run did not were listed for every read of every run
      if (!callsIndex(v.calls).namers(c).some(u => u !== c.tool)) continue
      missing ??= [...(calledIn.get(v.task) ?? [])].filter(t => !made.has(t) && writes.has(t))
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
  // which runs a rule about a tool can speak about (judge.ts): those that call it, those of a task that does
  const inRun = new Map<string, number[]>()
  const runsOf = new Map<string, number[]>()
  const push = (m: Map<string, number[]>, key: string, x: number) => {
    let list = m.get(key)
    if (!list) m.set(key, (list = []))
    if (list[list.length - 1] !== x) list.push(x)
  }
  for (const [x, v] of views.entries()) {
    for (const c of v.calls) push(inRun, c.tool, x)
    push(runsOf, v.task, x)
  }
  const tasksCalling = new Map<string, string[]>()
  for (const [task, called] of calledIn) {
    for (const t of called) {
      let list = tasksCalling.get(t)
      if (!list) tasksCalling.set(t, (list = []))
      list.push(task)
    }
  }
  return {vocab: Vocabulary.learn(views, tools), held: learnHeld(views), failedIn, calledIn, writes, repeated: views.length > new Set(views.map(v => v.task)).size, reads, readTools, values, reusedIn, firstArgs, views, inRun, runsOf, tasksCalling}
}
