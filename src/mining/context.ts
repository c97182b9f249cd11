import {learnHeld} from './guards.js'
import type {Context} from './judge.js'
import type {MineOptions, View} from './types.js'
import {Vocabulary} from './vocabulary.js'

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
  return {vocab: Vocabulary.learn(views, tools), held: learnHeld(views), failedIn, calledIn, writes, repeated: views.length > new Set(views.map(v => v.task)).size}
}
