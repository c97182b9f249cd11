import type {Split} from '../records/types.js'
import {loadScenarioDir, loadWithSealed} from './load.js'
import type {Problem, Scenario} from './types.js'
import {unsealedHeldOut, type UnsealedHeldOut} from './holdout.js'

export interface ScenarioSummary {
  id: string
  split: Split
  workflows: string[]
  description: string
}

export interface ScenarioListing {
  /** split → tag → scenario ids (a scenario appears under each of its tags) */
  groups: Record<string, Record<string, string[]>>
  scenarios: ScenarioSummary[]
  /** files that could not be loaded; listing continues without them */
  problems: Problem[]
  /** the sealed held-out file: how many scenarios it holds, and whether they were opened (with the key) and listed */
  sealed?: {files: number; opened: boolean}
  /** plain files that hold held-out tasks in the clear (src/scenarios/holdout.ts) */
  unsealed?: UnsealedHeldOut[]
}

export interface ListOptions {
  split?: Split
  tag?: string
}

export function summarize(s: Scenario): ScenarioSummary {
  return {id: s.id, split: s.split, workflows: s.workflows, description: s.description}
}

/** Pure: select and group loaded scenarios. */
export function groupScenarios(all: readonly Scenario[], opts: ListOptions = {}): Omit<ScenarioListing, 'problems'> {
  const order = ['train', 'validation', 'holdout']
  const picked = all
    .filter(s => (!opts.split || s.split === opts.split) && (!opts.tag || s.workflows.includes(opts.tag)))
    .sort((a, b) => order.indexOf(a.split) - order.indexOf(b.split) || (a.id < b.id ? -1 : 1))
  const groups: ScenarioListing['groups'] = {}
  for (const s of picked) {
    const bySplit = (groups[s.split] ??= {})
    for (const t of [...s.workflows].sort()) (bySplit[t] ??= []).push(s.id)
  }
  return {groups, scenarios: picked.map(summarize)}
}

export async function listScenarios(dir: string, opts: ListOptions = {}, key?: Buffer): Promise<ScenarioListing> {
  const {loaded, sealed} = await loadWithSealed(dir, key)
  const scenarios = loaded.flatMap(l => (l.scenario ? [l.scenario] : []))
  const unsealed = await unsealedHeldOut(loaded, !!sealed)
  return {...groupScenarios(scenarios, opts), problems: loaded.flatMap(l => l.problems), ...(sealed ? {sealed} : {}), ...(unsealed.length ? {unsealed} : {})}
}

/** Load every valid scenario of a folder (problems are thrown away: lint reports them). */
export async function loadScenarios(dir: string): Promise<Scenario[]> {
  return (await loadScenarioDir(dir)).flatMap(l => (l.scenario ? [l.scenario] : []))
}
