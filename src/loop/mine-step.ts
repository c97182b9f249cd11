import path from 'node:path'
import {cutWarning, mineFromLedgerAsync, replayedVerdicts, type Regraded, type VerdictCheck} from '../mining/index.js'
import {scenariosByTree} from '../evals/runner/dataset.js'
import type {RecordDraft} from '../records/index.js'
import {refuseDrafts} from '../store/index.js'
import {TOOL_SPECS} from '../world/catalog.js'
import type {MineStep} from './evolve.js'

/**
 * How many iterations of train runs the loop's miner reads at once: the latest and the ones
 * before it. Each iteration trains with its own seed (fresh samples), so a situation too rare
 * to show in one iteration's runs shows across a few.
 */
export const MINED_ITERATIONS = 1000

/** Words for the knowledge the miner states (an LLM, src/loop/llm.ts); the claims' substance stays the miner's. */
export type MineDrafter = (knowledge: RecordDraft<'knowledge'>[]) => Promise<RecordDraft<'knowledge'>[]>

/**
 * The deterministic miner as the loop's mining step: evidence first, then the knowledge that
 * cites it (its texts drafted, if asked). It gives the event loop a turn every few milliseconds
 * (a SIGTERM stops it before anything is written) and names each trace it read only in part
 * (`warn`, default stderr).
 */
export function mineStep(o: {draft?: MineDrafter; warn?: (line: string) => void} = {}): MineStep {
  const warn = o.warn ?? ((line: string) => void process.stderr.write(`${line}\n`))
  return async (store, ledger, m) => {
    // the lane's own train runs (and the episodes of others they reused), each verdict replayed against the run's scenarios
    const verdicts = await replayedIn([m.scenariosDir])
    const r = await mineFromLedgerAsync(ledger, {manifest: m.manifest, recent: MINED_ITERATIONS, lane: m.lane, ownManifests: true, verdicts, tools: TOOL_SPECS, ...(m.anchors ? {anchors: m.anchors} : {})})
    for (const c of r.cut) warn(cutWarning(c))
    const drafts = o.draft && r.knowledge.length ? await o.draft(r.knowledge) : r.knowledge
    // (a secret the store would refuse, refused before the evidence is written, as `exp mine` does)
    refuseDrafts([...r.evidence, ...drafts], `nothing of this mining was written, evidence nor claims${o.draft ? '; a drafted claim holds it: run again without --miner-drafts for the miner\'s own words' : ''}`)
    const evidence = r.evidence.length ? await store.appendBatch(r.evidence, {lane: m.lane, now: m.now}) : []
    const knowledge = drafts.length ? await store.appendBatch(drafts, {lane: m.lane, now: m.now}) : []
    return {
      evidence: evidence.map(e => e.id),
      knowledge: knowledge.map(k => k.id),
      patterns: r.evidence.map(d => ({pattern: d.body.pattern, signature: d.body.signature, description: d.body.description, support: d.body.support, failures: d.body.failures, ...(d.body.rule ? {rule: d.body.rule} : {})})),
    }
  }
}

/** The deterministic miner, offline. */
export const deterministicMine: MineStep = mineStep()

/**
 * replayedVerdicts against the train scenarios of folders on disk (the folder a run read them
 * from): a manifest that pins the tree of another folder is not replayed here.
 */
export async function replayedIn(dirs: readonly string[]): Promise<VerdictCheck> {
  const trees = await scenariosByTree(dirs, 'train')
  const here = dirs.map(d => path.relative(process.cwd(), d) || '.').join(', ')
  return replayedVerdicts(tree => trees.get(tree) ?? `its manifest ran on scenarios (tree ${tree.slice(0, 12)}) other than those in ${here}: pass the folder it ran on with --scenarios`, REGRADED)
}

/** Verdicts this process re-derived (deterministic: by dataset tree and trace digest, the same in every iteration of a loop). */
const REGRADED = new Map<string, Regraded>()
