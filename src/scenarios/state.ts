import {buildInitialState} from '../world/initial.js'
import type {WorldState} from '../world/types.js'
import type {Scenario} from './types.js'

/** The frozen initial state of a scenario, built once per scenario object and reused by every episode. */
const cache = new WeakMap<Scenario, WorldState>()

export function initialStateOf(s: Scenario): WorldState {
  let st = cache.get(s)
  if (!st) {
    st = buildInitialState(s.initial)
    cache.set(s, st)
  }
  return st
}
