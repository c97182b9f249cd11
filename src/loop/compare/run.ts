import type {RecordStore} from '../../store/index.js'
import {namespaced} from '../../store/index.js'
import type {Workspace} from '../../workspace/port.js'
import {NotFoundError, SealedSplitError} from '../../errors/index.js'
import {sealedPath} from '../../scenarios/index.js'
import {runEvaluation, type RunResult} from '../../evals/runner/run.js'
import {recalls} from '../../evals/runner/memory.js'
import type {EvalRunOptions} from '../evaluate.js'
import {evolve, type EvolveResult} from '../evolve.js'
import {deterministicMine} from '../mine-step.js'
import {skillPath, unknownSkill} from '../files.js'
import {recallForRun} from '../memory.js'
import {currentKnowledge} from '../knowledge.js'
import {ARM_SPECS, armMainRef, armNamespace, compareId, type Arm} from './arms.js'
import {trace2skillStep} from './trace2skill.js'
import {episodesIn, trainStream} from './stream.js'
import {hypotheses, pairwise, type ArmEpisodes, type HypothesisVerdict, type PairTest} from './verdicts.js'

/** What an experiment of several loops runs with (`exp compare`, `exp gain`). */
export interface ExperimentOptions extends EvalRunOptions {
  skill: string
  mainRef: string
  budgetEpisodes: number
  iterations: number
  trainRepeat: number
  evalRepeat: number
  maxRules: number
  recall: {items: number; tokens: number}
  /** exploration of the training runs of the arms that evolve (EvolveOptions.exploreRate); the others never explore */
  exploreRate?: number
  onStep?: (step: string) => void
}

export interface CompareOptions extends ExperimentOptions {
  arms: Arm[]
  claimTtlSeconds?: number
}

export interface ArmReport {
  arm: Arm
  namespace: string
  main_ref: string
  mode: string
  persistent_traces: boolean
  structured_knowledge: boolean
  evolved_skill: boolean
  /** held-out success of the arm's final configuration */
  success: number
  passed: number
  total: number
  invalid: number
  ci: [number, number]
  /** every episode the arm recorded (learning, validation, held-out) */
  episodes: number
  /** the held-out episodes of the final evaluation (shared by all arms: the same scenarios and seeds) */
  holdout_episodes: number
  skill: {commit: string; blob: string}
  manifest: string
  evaluation: string
  knowledge: number
  promoted?: number
  rejected?: number
  stopped?: string
}

/** What every experiment of several loops reports about itself (`exp compare`, `exp gain`). */
export interface ExperimentHeader {
  id: string
  skill: string
  agent: string
  seed: number
  budget_episodes: number
  iterations: number
  repeat: number
  start: string
}

export interface CompareResult extends ExperimentHeader {
  holdout: {sealed: boolean; certified: boolean}
  arms: ArmReport[]
  pairs: PairTest[]
  hypotheses: HypothesisVerdict[]
  /** the note that records this result (exp report reads it) */
  note: string
}

/** The lane of a compare run's own records (its result notes): not inside any arm's namespace. */
export const compareLane = (id: string) => `cmp-${id}`

/**
 * `exp compare` (docs/compare.md): the four configurations of the research questions under
 * one budget, one seed policy and one agent, each in its own namespace — one lane
 * (`cmp-<id>-<arm>`), a store that sees only that lane, a main ref of its own and proposal
 * branches under exp/proposal/<namespace>/ — so no knowledge, claim, proposal or episode of
 * one arm reaches another. Every arm ends with the same held-out evaluation (scenarios,
 * seeds, repetitions), so arms are compared pair by pair on the same episodes. Resumable:
 * the compare id derives from the options and the start commit, every step below it is.
 */
export async function compare(store: RecordStore, ws: Workspace, o: CompareOptions): Promise<CompareResult> {
  const start = await ws.readRef(o.mainRef)
  if (!start) throw new NotFoundError('branch', o.mainRef, 'commit the skill first: `exp init --example onboarding`')
  if (!(await ws.hasFile(start, skillPath(o.skill)))) throw await unknownSkill(ws, start, o.mainRef, o.skill)
  const sealed = !!sealedPath(o.scenariosDir)
  if (sealed && !o.holdoutKey) throw new SealedSplitError('exp compare cannot certify held-out results: the held-out split is sealed and no key was found; nothing was run', 'set EXP_HOLDOUT_KEY or EXP_HOLDOUT_KEY_FILE, or put the key in .git/exp/holdout.key, then run the same command again')
  const seed = o.seed ?? 42
  const id = compareId({skill: o.skill, agent: o.agent, seed, budget: o.budgetEpisodes, iterations: o.iterations, trainRepeat: o.trainRepeat, evalRepeat: o.evalRepeat, maxRules: o.maxRules, recall: o.recall, ...(o.maxSteps ? {maxSteps: o.maxSteps} : {}), ...(o.exploreRate ? {explore: o.exploreRate} : {}), start})
  const reports: ArmReport[] = []
  const episodes: ArmEpisodes[] = []
  for (const arm of o.arms) {
    const spec = ARM_SPECS[arm]
    const ns = armNamespace(id, arm)
    const s = namespaced(store, ns)
    const ref = armMainRef(id, arm)
    if (!(await ws.readRef(ref))) await ws.moveRef(ref, start, undefined)
    const base = {...o, lane: ns, namespace: ns, seed}
    let evolved: EvolveResult | undefined
    let stopped: string | undefined
    o.onStep?.(`${arm}: learning`)
    if (spec.evolves) {
      evolved = await evolve(s, ws, {
        ...base,
        mainRef: ref,
        iterations: o.iterations,
        budgetEpisodes: o.budgetEpisodes,
        trainRepeat: o.trainRepeat,
        evalRepeat: o.evalRepeat,
        maxRules: o.maxRules,
        recall: o.recall,
        memoryMode: spec.mode,
        mine: spec.drafter === 'raw-traces' ? trace2skillStep({skill: o.skill}) : deterministicMine,
        ...(o.claimTtlSeconds ? {claimTtlSeconds: o.claimTtlSeconds} : {}),
      })
      stopped = evolved.stopped
    } else if (spec.persistent_traces) {
      stopped = (await trainStream(s, ws, {...base, skill: o.skill, commit: start, iterations: o.iterations, budgetEpisodes: o.budgetEpisodes, trainRepeat: o.trainRepeat, mode: spec.mode, recall: o.recall, mine: deterministicMine})).stopped
    }
    o.onStep?.(`${arm}: held-out`)
    const tip = (await ws.readRef(ref))!
    const text = (await ws.readFile(tip, skillPath(o.skill)))!.toString('utf8')
    const memory = recalls(spec.mode) ? await recallForRun(s, {mode: spec.mode, skill: {name: o.skill, content: text}, lane: ns, budget: o.recall, ...(o.now ? {now: o.now} : {})}) : {mode: spec.mode}
    const held: RunResult = await runEvaluation(s, {...base, workspace: ws, split: 'holdout', repeat: o.evalRepeat, skill: `${tip}:${skillPath(o.skill)}`, role: 'baseline', memory})
    const ledger = await s.ledger()
    reports.push({
      arm,
      namespace: ns,
      main_ref: ref,
      mode: spec.mode,
      persistent_traces: spec.persistent_traces,
      structured_knowledge: spec.structured_knowledge,
      evolved_skill: spec.evolved_skill,
      success: held.success_rate,
      passed: held.passed,
      total: held.total,
      invalid: held.invalid,
      ci: held.ci,
      episodes: episodesIn(ledger),
      holdout_episodes: held.total,
      skill: {commit: tip, blob: held.skill.blob},
      manifest: held.manifest,
      evaluation: held.evaluation,
      knowledge: currentKnowledge(ledger).length,
      ...(evolved ? {promoted: evolved.promoted, rejected: evolved.rejected} : {}),
      ...(stopped ? {stopped} : {}),
    })
    episodes.push({arm, success: held.success_rate, ci: held.ci, total: held.total, evaluation: held.private_evaluation ?? held.evaluation, verified: held.verified})
  }
  const pairs = pairwise(episodes)
  const hs = hypotheses(episodes, pairs)
  const summary = {id, skill: o.skill, agent: o.agent, seed, budget_episodes: o.budgetEpisodes, iterations: o.iterations, repeat: o.evalRepeat, start, holdout: {sealed, certified: true}, arms: reports, pairs, hypotheses: hs}
  // the result as a record: exp report draws its chart from history, like every other view
  const note = (await store.append({kind: 'note', body: {text: `compare ${id}: ${JSON.stringify(summary)}`, about: reports.map(r => r.evaluation), action: 'comment'}, cites: reports.map(r => r.evaluation)}, {lane: compareLane(id), ...(o.now ? {now: o.now} : {})})).id
  return {...summary, note}
}
