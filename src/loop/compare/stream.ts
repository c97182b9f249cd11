import type {Ledger, RecordStore} from '../../store/index.js'
import type {Workspace} from '../../workspace/port.js'
import {runEvaluation} from '../../evals/runner/run.js'
import {records, recalls, type MemoryMode} from '../../evals/runner/memory.js'
import type {EvalRunOptions} from '../evaluate.js'
import type {MineStep} from '../evolve.js'
import {skillPath} from '../files.js'
import {recallForRun} from '../memory.js'

export interface StreamOptions extends EvalRunOptions {
  skill: string
  /** the commit the skill is read from (it does not change: nothing is promoted) */
  commit: string
  namespace: string
  iterations: number
  budgetEpisodes: number
  trainRepeat: number
  mode: MemoryMode
  recall: {items: number; tokens: number}
  mine: MineStep
  /** the seed of each train run, in order (default: seed + i - 1 for run i) */
  seeds?: readonly number[]
}

export interface StreamResult {
  /** the train manifests of the stream, in order */
  manifests: string[]
  /** why it ended before its iterations, if it did */
  stopped?: string
}

/** Every episode recorded in the ledger (a namespaced store's: the arm's), public and private. */
export function episodesIn(ledger: Ledger): number {
  return ledger.select({kinds: ['trace']}).length
}

const noteKey = (ns: string, i: number) => `stream/${ns}/${i}`

/**
 * A stream of train runs with a fixed skill (the memory arm, and both sides of `exp gain`):
 * iteration i runs train with seed + i - 1 (the seeds evolve's train runs use), recalling
 * first when the mode recalls, mining after when it records. A note per finished iteration
 * (keyed by namespace and iteration, citing its manifest) makes it resumable: a rerun skips
 * what is done, so a recall built on later knowledge never replaces an earlier one.
 */
export async function trainStream(store: RecordStore, ws: Workspace, o: StreamOptions): Promise<StreamResult> {
  const manifests: string[] = []
  const text = (await ws.readFile(o.commit, skillPath(o.skill)))?.toString('utf8') ?? ''
  const at = {lane: o.lane, ...(o.now ? {now: o.now} : {})}
  await store.append({kind: 'note', key: noteKey(o.namespace, 0), body: {text: `${noteKey(o.namespace, 0)}: train stream of ${o.skill} at ${o.commit} under memory mode ${o.mode}`, action: 'comment'}}, at)
  for (let i = 1; i <= o.iterations; i++) {
    const ledger = await store.ledger()
    const notes = ledger.select({kinds: ['note'], lanes: [o.lane]}).map(e => ({e, n: ledger.load<'note'>(e)}))
    const noteOf = (k: number) => notes.find(x => x.n.body.text.startsWith(`${noteKey(o.namespace, k)}:`))
    const done = noteOf(i)
    if (done) {
      manifests.push(done.n.body.about![0]!)
      continue
    }
    // the knowledge recorded before the previous iteration's note: a run started again after a kill recalls what it recalled the first time
    const until = noteOf(i - 1)?.e.lamport
    if (episodesIn(ledger) >= o.budgetEpisodes) return {manifests, stopped: `episode budget reached (${episodesIn(ledger)} >= ${o.budgetEpisodes})`}
    const memory = recalls(o.mode) ? await recallForRun(store, {mode: o.mode, skill: {name: o.skill, content: text}, lane: o.lane, budget: o.recall, ...(until !== undefined ? {until} : {}), ...(o.now ? {now: o.now} : {})}) : {mode: o.mode}
    const train = await runEvaluation(store, {...o, workspace: ws, split: 'train', repeat: o.trainRepeat, seed: o.seeds?.[i - 1] ?? (o.seed ?? 42) + i - 1, skill: `${o.commit}:${skillPath(o.skill)}`, memory, namespace: o.namespace})
    if (records(o.mode)) await o.mine(store, await store.ledger(), {manifest: train.manifest, ...at, scenariosDir: o.scenariosDir})
    await store.append({kind: 'note', key: noteKey(o.namespace, i), body: {text: `${noteKey(o.namespace, i)}: train ${train.manifest} under memory mode ${o.mode}`, about: [train.manifest], action: 'comment'}, cites: [train.manifest]}, at)
    manifests.push(train.manifest)
  }
  return {manifests}
}
