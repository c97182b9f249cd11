import type {ResearchConfig} from '../records/types.js'
import {DEFAULT_TTL_SECONDS} from '../lifecycle/index.js'

/** A knowledge budget: how many items, how many tokens of their text. */
export interface Budget {
  items: number
  tokens: number
}

/** What an agent reads of the knowledge at run time (memory modes recall_only and closed_loop). */
export const recallBudget = (c: ResearchConfig): Budget => ({items: c.recall?.items ?? 8, tokens: c.recall?.tokens ?? 1200})

/**
 * What the proposer draws on for one proposal (`propose` of .research/config.yaml). Larger than
 * the run-time recall: the first candidate takes every rule offered, and one candidate with
 * every supported rule shows its effect in fewer episodes than several small ones, each too
 * small for the gate's test to see (docs/loop.md, "Fewer episodes per decision").
 */
export const proposeBudget = (c: ResearchConfig): Budget => ({items: c.propose?.items ?? 16, tokens: c.propose?.tokens ?? 3000})

/** Seconds a claim holds without renewal (`claims.ttl_seconds`), where no flag says. */
export const claimTtl = (c: ResearchConfig): number => c.claims?.ttl_seconds ?? DEFAULT_TTL_SECONDS
