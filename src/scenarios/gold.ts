import {grade} from '../evals/grader/grade.js'
import type {GradedAction, Verdict} from '../evals/grader/types.js'
import {World} from '../world/world.js'
import {initialStateOf} from './state.js'
import type {Scenario} from './types.js'

export interface GoldReplay {
  actions: GradedAction[]
  verdict: Verdict
}

/** Run a scenario's gold trajectory in a fresh world and grade it: the proof that the scenario is solvable. */
export function replayGold(s: Scenario): GoldReplay {
  const initial = initialStateOf(s)
  const world = new World(initial)
  let latency = 0
  const actions: GradedAction[] = s.gold.map(call => {
    const step = world.invoke(call)
    latency += step.latencyMs
    const o = step.outcome
    return o.ok ? {tool: call.tool, arguments: call.arguments, ok: true} : {tool: call.tool, arguments: call.arguments, ok: false, error: o.error}
  })
  const verdict = grade({spec: s, initial, final: world.state, actions, usage: {tokens: 0, latency_ms: latency, messages: 0}, valid: true})
  return {actions, verdict}
}
