import {sha256Hex} from '../../records/digest.js'
import type {Scenario} from '../../scenarios/index.js'
import type {Ledger} from '../../store/index.js'
import {slotKey} from './plan.js'

/** One place of a run: a scenario at a repetition (its episode id derives from manifest, scenario, repetition). */
export interface Slot {
  key: string
  scenario: Scenario
  rep: number
}

/**
 * The places of a run in the order they are drawn: repetition by repetition (a pass over the
 * split each), and within a pass the scenarios in the order of the SHA-256 of their ids — a
 * fixed shuffle, the same in every clone, so that a pass cut short is not all of one family
 * of scenarios.
 */
export function slotsOf(scenarios: readonly Scenario[], repeat: number): Slot[] {
  const order = [...scenarios].map(s => ({s, h: sha256Hex(`slot\0${s.id}`)})).sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0))
  return Array.from({length: repeat}, (_, rep) => order.map(({s}) => ({key: slotKey(s.id, rep), scenario: s, rep}))).flat()
}

/**
 * How many times the sealed held-out split has been looked at, this look included: the
 * number of distinct held-out experiments (manifests) evaluated so far. Evaluating the same
 * manifest again — a rerun, or the same skill as baseline of the next proposal — is the same
 * look, not a new one.
 */
export function holdoutLooks(ledger: Ledger, manifest: string): number {
  const seen = new Set<string>()
  for (const e of ledger.select({kinds: ['evaluation']})) {
    const r = ledger.load<'evaluation'>(e)
    if (r.body.split !== 'holdout' || e.private) continue
    if (r.body.manifest === manifest) return r.body.holdout_looks ?? seen.size + 1
    seen.add(r.body.manifest)
  }
  return seen.size + 1
}

/** The plan from a place that depends on the lane only: the same order for the same lane. */
export function rotate<T>(items: readonly T[], lane: string): T[] {
  if (items.length < 2) return [...items]
  const at = Number.parseInt(sha256Hex(`lane\0${lane}`).slice(0, 8), 16) % items.length
  return [...items.slice(at), ...items.slice(0, at)]
}
