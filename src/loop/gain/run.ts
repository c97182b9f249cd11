import type {RecordStore} from '../../store/index.js'
import {namespaced} from '../../store/index.js'
import type {Workspace} from '../../workspace/port.js'
import {NotFoundError, SealedSplitError} from '../../errors/index.js'
import {sealedPath} from '../../scenarios/index.js'
import {runEvaluation, type RunResult} from '../../evals/runner/run.js'
import {compareRuns} from '../../evals/compare.js'
import type {MemoryMode} from '../../evals/runner/memory.js'
import type {ExperimentHeader, ExperimentOptions} from '../compare/run.js'
import {evolve} from '../evolve.js'
import {deterministicMine} from '../mine-step.js'
import {skillPath, unknownSkill} from '../files.js'
import {recallForRun} from '../memory.js'
import {armMainRef, armNamespace, compareId} from '../compare/arms.js'
import {trainStream} from '../compare/stream.js'
import {sideMetrics, type SideMetrics} from './metrics.js'

export type GainOptions = ExperimentOptions

export interface GainSide {
  mode: MemoryMode
  namespace: string
  success: number
  passed: number
  total: number
  ci: [number, number]
  evaluation: string
  skill: {commit: string; blob: string}
  metrics: SideMetrics
}

export interface GainResult extends ExperimentHeader {
  /** score(closed_loop) − score(off) on the same held-out episodes */
  gain: number
  /** paired bootstrap 95% interval of the gain over scenarios */
  ci: [number, number]
  mcnemar_p: number
  pairs: number
  closed_loop: GainSide
  off: GainSide
  note: string
}

/**
 * `exp gain` (docs/compare.md: the number the loop exists to raise): Experience Gain =
 * score(closed_loop) − score(off) with the same agent, scenarios, seeds and budget. The
 * closed-loop side is the loop itself under memory mode closed_loop in its own namespace
 * (mining, recall into the agent's context, proposals, promotions on its own main ref);
 * the off side runs the same train runs (as many, the same seeds) with memory off and its
 * skill unchanged. Both end on the same held-out episodes: the gain's interval is paired.
 */
export async function gain(store: RecordStore, ws: Workspace, o: GainOptions): Promise<GainResult> {
  const start = await ws.readRef(o.mainRef)
  if (!start) throw new NotFoundError('branch', o.mainRef, 'commit the skill first: `exp init --example onboarding`')
  if (!(await ws.hasFile(start, skillPath(o.skill)))) throw await unknownSkill(ws, start, o.mainRef, o.skill)
  if (sealedPath(o.scenariosDir) && !o.holdoutKey) throw new SealedSplitError('exp gain cannot certify a held-out gain: the held-out split is sealed and no key was found; nothing was run', 'set EXP_HOLDOUT_KEY or EXP_HOLDOUT_KEY_FILE, or put the key in .git/exp/holdout.key, then run the same command again')
  const seed = o.seed ?? 42
  const id = compareId({skill: o.skill, agent: o.agent, seed, budget: o.budgetEpisodes, iterations: o.iterations, trainRepeat: o.trainRepeat, evalRepeat: o.evalRepeat, maxRules: o.maxRules, recall: o.recall, ...(o.maxSteps ? {maxSteps: o.maxSteps} : {}), ...(o.exploreRate ? {explore: o.exploreRate} : {}), start})
  const side = async (mode: MemoryMode, seeds?: number[]): Promise<{side: GainSide; held: RunResult}> => {
    const ns = armNamespace(id, mode, 'gain')
    const s = namespaced(store, ns)
    const ref = armMainRef(id, mode, 'gain')
    if (!(await ws.readRef(ref))) await ws.moveRef(ref, start, undefined)
    const base = {...o, lane: ns, namespace: ns, seed}
    o.onStep?.(`${mode}: learning`)
    let trainRuns: string[] | undefined
    if (mode === 'closed_loop') await evolve(s, ws, {...base, mainRef: ref, iterations: o.iterations, budgetEpisodes: o.budgetEpisodes, trainRepeat: o.trainRepeat, evalRepeat: o.evalRepeat, maxRules: o.maxRules, recall: o.recall, memoryMode: mode, mine: deterministicMine})
    else trainRuns = (await trainStream(s, ws, {...base, skill: o.skill, commit: start, iterations: seeds?.length ?? o.iterations, ...(seeds ? {seeds} : {}), budgetEpisodes: Number.MAX_SAFE_INTEGER, trainRepeat: o.trainRepeat, mode, recall: o.recall, mine: deterministicMine})).manifests
    o.onStep?.(`${mode}: held-out`)
    const tip = (await ws.readRef(ref))!
    const text = (await ws.readFile(tip, skillPath(o.skill)))!.toString('utf8')
    const memory = mode === 'closed_loop' ? await recallForRun(s, {mode, skill: {name: o.skill, content: text}, lane: ns, budget: o.recall, ...(o.now ? {now: o.now} : {})}) : {mode}
    const held = await runEvaluation(s, {...base, workspace: ws, split: 'holdout', repeat: o.evalRepeat, skill: `${tip}:${skillPath(o.skill)}`, role: 'baseline', memory})
    const metrics = sideMetrics(await s.ledger(), trainRuns)
    return {held, side: {mode, namespace: ns, success: held.success_rate, passed: held.passed, total: held.total, ci: held.ci, evaluation: held.evaluation, skill: {commit: tip, blob: held.skill.blob}, metrics}}
  }
  const closed = await side('closed_loop')
  // the off side meets the train runs the closed loop met: as many, on the same seeds (a seed run
  // again without memory is the same experiment: its episodes are reused, its failures repeat)
  const closedLedger = await namespaced(store, closed.side.namespace).ledger()
  const seeds = closedLedger.select({kinds: ['manifest']}).map(e => closedLedger.load<'manifest'>(e).body).filter(m => m.split === 'train').map(m => m.seed)
  const off = await side('off', seeds.length ? seeds : [seed])
  const c = compareRuns(off.held.private_evaluation ?? off.held.evaluation, off.held.verified, closed.held.verified)
  const summary = {id, skill: o.skill, agent: o.agent, seed, budget_episodes: o.budgetEpisodes, iterations: o.iterations, repeat: o.evalRepeat, start, gain: c.diff, ci: c.bootstrap_ci as [number, number], mcnemar_p: c.mcnemar_p, pairs: c.wins + c.losses + c.ties, closed_loop: closed.side, off: off.side}
  const cites = [closed.side.evaluation, off.side.evaluation]
  const note = (await store.append({kind: 'note', body: {text: `gain ${id}: ${JSON.stringify(summary)}`, about: cites, action: 'comment'}, cites}, {lane: `gain-${id}`, ...(o.now ? {now: o.now} : {})})).id
  return {...summary, note}
}
