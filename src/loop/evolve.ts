import {hashObject} from '../store/git/objects.js'
import {readRef} from '../store/git/refs.js'
import {readFileAt} from '../store/git/commits.js'
import type {GitRecordStore, Ledger} from '../store/index.js'
import {NotFoundError} from '../errors/index.js'
import type {Rule} from '../agents/scripted/rules.js'
import {runEvaluation, type RunResult} from '../evals/runner/run.js'
import {createProposal} from './proposal.js'
import {evaluateProposal, loadProposal, type EvalRunOptions} from './evaluate.js'
import {promoteProposal} from './promote.js'
import {readPurposeAt} from './proposal.js'
import {skillPath} from './files.js'
import type {IterationReport} from './dashboard.js'

/** The mining step behind its seam: the deterministic miner by default (src/mining). */
export interface MineResult {
  evidence: string[]
  knowledge: string[]
  patterns: {pattern: string; signature: string; support: number; failures: number; rule?: Rule}[]
}
export type MineStep = (store: GitRecordStore, ledger: Ledger, o: {manifest: string; lane: string; now?: () => Date}) => Promise<MineResult>

export interface EvolveOptions extends EvalRunOptions {
  skill: string
  mainRef: string
  iterations: number
  budgetEpisodes?: number
  trainRepeat: number
  evalRepeat: number
  maxRules?: number
  recall: {items: number; tokens: number}
  mine: MineStep
  onIteration?: (r: IterationReport) => void
  onStep?: (step: string) => void
}

export interface EvolveResult {
  iterations: IterationReport[]
  holdout_before: number
  holdout_after: number
  promoted: number
  rejected: number
  episodes: number
  /** when the main skill first reached 85% held-out success: after how many episodes */
  reached_85?: {iteration: number; episodes: number}
  stopped?: string
}

/**
 * `exp evolve`: run train → mine → propose → eval → promote, N times. Every step is
 * idempotent (records keyed by content or by (manifest, scenario, repetition); branches and
 * merge commits deterministic), so after a kill the same command replays what is done for
 * free and continues; the same starting state gives the same record ids.
 */
export async function evolve(store: GitRecordStore, o: EvolveOptions): Promise<EvolveResult> {
  let episodes = 0
  const count = (r: RunResult) => {
    episodes += r.recorded
    return r
  }
  const mainSkill = async () => {
    const main = await readRef(store.commonDir, o.mainRef)
    if (!main) throw new NotFoundError('branch', o.mainRef, 'commit the skill first: `exp init --example onboarding`')
    const text = await readFileAt(store, main, skillPath(o.skill))
    if (!text) throw new NotFoundError('skill on main', `${o.mainRef}:${skillPath(o.skill)}`)
    return {main, blob: hashObject('blob', text), version: (await readPurposeAt(store, main, o.skill)).version}
  }
  const holdoutOf = async (commit: string) => count(await runEvaluation(store, {...o, repo: store.repo, split: 'holdout', repeat: o.evalRepeat, skill: `${commit}:${skillPath(o.skill)}`, role: 'baseline'})).success_rate
  o.onStep?.('held-out baseline')
  const holdoutBefore = await holdoutOf((await mainSkill()).main)
  const reports: IterationReport[] = []
  let promoted = 0
  let rejected = 0
  let reached: EvolveResult['reached_85']
  let stopped: string | undefined
  for (let i = 1; i <= o.iterations; i++) {
    if (o.budgetEpisodes !== undefined && episodes >= o.budgetEpisodes) {
      stopped = `episode budget reached (${episodes} >= ${o.budgetEpisodes})`
      break
    }
    const s = await mainSkill()
    o.onStep?.(`iteration ${i}: train`)
    const train = count(await runEvaluation(store, {...o, repo: store.repo, split: 'train', repeat: o.trainRepeat, skill: `${s.main}:${skillPath(o.skill)}`}))
    o.onStep?.(`iteration ${i}: mine`)
    const mined = await o.mine(store, await store.ledger(), {manifest: train.manifest, lane: o.lane, now: o.now})
    const report: IterationReport = {
      iteration: i,
      skill: {name: o.skill, version: s.version, blob: s.blob, commit: s.main},
      training: {manifest: train.manifest, evaluation: train.evaluation, passed: train.passed, total: train.total, rate: train.success_rate},
      patterns: mined.patterns,
      knowledge: mined.knowledge,
      episodes: 0,
    }
    o.onStep?.(`iteration ${i}: propose`)
    const created = await createProposal(store, await store.ledger(), {skill: o.skill, lane: o.lane, mainRef: o.mainRef, recall: o.recall, maxRules: o.maxRules, now: o.now})
    if (!created) {
      report.note = 'no knowledge left that the skill does not already follow or that was not rejected'
      report.episodes = episodes
      reports.push(report)
      o.onIteration?.(report)
      continue
    }
    report.proposal = {id: created.proposal, version: created.version, branch: created.branch, added: created.patch.rendered.size.added, removed: created.patch.rendered.size.removed, sections: created.patch.rendered.sections}
    o.onStep?.(`iteration ${i}: eval`)
    let ledger = await store.ledger()
    const proposal = loadProposal(ledger, created.proposal)
    const ev = await evaluateProposal(store, proposal, 'validation', {...o, repeat: o.evalRepeat})
    count(ev.baseline)
    count(ev.candidate)
    report.validation = {baseline: ev.baseline.success_rate, candidate: ev.candidate.success_rate, wins: ev.comparison.wins, losses: ev.comparison.losses, mcnemar_p: ev.comparison.mcnemar_p, evaluation: ev.candidate.evaluation}
    report.regressions = ev.comparison.regressions.length
    o.onStep?.(`iteration ${i}: promote`)
    ledger = await store.ledger()
    const dec = await promoteProposal(store, ledger, proposal, {...o, repeat: o.evalRepeat})
    if (dec.holdout) {
      // the two held-out runs of the promotion: count what they recorded
      episodes += countNew(await store.ledger(), ledger)
      report.holdout = {baseline: dec.holdout.baseline, candidate: dec.holdout.candidate}
    }
    report.decision = {id: dec.decision, verdict: dec.verdict, reasons: dec.reasons, merge: dec.merge}
    if (dec.verdict === 'accept') {
      promoted++
      if (!reached && dec.holdout && dec.holdout.candidate >= 0.85) reached = {iteration: i, episodes}
    } else rejected++
    report.episodes = episodes
    reports.push(report)
    o.onIteration?.(report)
  }
  o.onStep?.('held-out after')
  const after = await mainSkill()
  const holdoutAfter = await holdoutOf(after.main)
  if (!reached && holdoutBefore >= 0.85) reached = {iteration: 0, episodes: 0}
  return {iterations: reports, holdout_before: holdoutBefore, holdout_after: holdoutAfter, promoted, rejected, episodes, ...(reached ? {reached_85: reached} : {}), ...(stopped ? {stopped} : {})}
}

/** Traces recorded between two ledgers (held-out traces live on private lanes, counted too). */
function countNew(after: Ledger, before: Ledger): number {
  return after.select({kinds: ['trace']}).length - before.select({kinds: ['trace']}).length
}
