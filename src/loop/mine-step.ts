import {mineFromLedger} from '../mining/index.js'
import {TOOL_SPECS} from '../world/catalog.js'
import type {MineStep} from './evolve.js'

/**
 * How many iterations of train runs the loop's miner reads at once: the latest and the ones
 * before it. Each iteration's runs are fresh samples (docs/mining.md), so a situation too rare
 * to show in one iteration's runs shows in a few.
 */
export const MINED_ITERATIONS = 1000

/** The deterministic miner as the loop's mining step: evidence first, then the knowledge that cites it. */
export const deterministicMine: MineStep = async (store, ledger, o) => {
  const r = mineFromLedger(ledger, {manifest: o.manifest, recent: MINED_ITERATIONS, tools: TOOL_SPECS})
  const evidence = r.evidence.length ? await store.appendBatch(r.evidence, {lane: o.lane, now: o.now}) : []
  const knowledge = r.knowledge.length ? await store.appendBatch(r.knowledge, {lane: o.lane, now: o.now}) : []
  return {
    evidence: evidence.map(e => e.id),
    knowledge: knowledge.map(k => k.id),
    patterns: r.evidence.map(d => ({pattern: d.body.pattern, signature: d.body.signature, support: d.body.support, failures: d.body.failures, ...(d.body.rule ? {rule: d.body.rule} : {})})),
  }
}
