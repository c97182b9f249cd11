import {digestOf, recordId, type RecordDraft} from '../records/index.js'
import type {Ledger} from '../store/index.js'
import type {EvolveOptions} from './evolve.js'

/**
 * An `exp evolve` run is identified by its options (skill, lane, agent, seed, repetitions,
 * iterations, budgets) and a generation: the same command started again is the same run and
 * finishes it (docs/loop.md). Its progress is in `note` records with keys of their own:
 * `evolve/<identity>/<generation>` when it starts (on which main commit), one per finished
 * iteration (which decision, which main after it, how many episodes) and one when it is done.
 * They are written after the work they describe, so a run killed at any point finds the
 * last iteration it finished and goes on from the main that iteration left.
 * The options below identify a run; the others (progress callbacks, event sinks) do not change what it does.
 */
export type RunOptionsForIdentity = Pick<EvolveOptions, 'skill' | 'lane' | 'mainRef' | 'agent' | 'seed' | 'iterations' | 'trainRepeat' | 'evalRepeat' | 'maxRules' | 'exploreRate' | 'recall' | 'propose' | 'budgetEpisodes' | 'maxSteps' | 'memoryMode' | 'namespace'>

export interface RunIteration {
  iteration: number
  /** main after the iteration (the base of the next one) */
  main: string
  decision?: string
  episodes: number
  /** why there was no decision (no candidate left, main moved, ...) */
  note?: string
}

export interface RunState {
  identity: string
  generation: number
  /** the main commit the run started from; undefined: this generation has not started */
  start?: string
  iterations: RunIteration[]
  finished?: {stopped?: string}
}

/** The run's identity: a digest of the options that decide what it does. */
export function runIdentity(o: RunOptionsForIdentity): string {
  const picked = {skill: o.skill, lane: o.lane, main: o.mainRef, agent: o.agent, seed: o.seed ?? 42, iterations: o.iterations, train_repeat: o.trainRepeat, eval_repeat: o.evalRepeat, max_rules: o.maxRules ?? 3, ...(o.exploreRate ? {explore: o.exploreRate} : {}), recall: o.recall, ...(o.propose ? {propose: o.propose} : {}), budget_episodes: o.budgetEpisodes ?? null, max_steps: o.maxSteps ?? null, ...(o.memoryMode && o.memoryMode !== 'record_only' ? {memory_mode: o.memoryMode} : {}), ...(o.namespace ? {namespace: o.namespace} : {})}
  return digestOf(picked).slice('sha256:'.length, 'sha256:'.length + 16)
}

const key = (identity: string, generation: number, part?: string | number) => `evolve/${identity}/${generation}${part === undefined ? '' : `/${part}`}`
const noteId = (k: string) => recordId('note', '', k)
const COMMIT = /\bmain ([0-9a-f]{40})\b/
const EPISODES = /\b(\d+) new episode\(s\)/

function textOf(ledger: Ledger, k: string): string | undefined {
  const e = ledger.get(noteId(k))
  return e ? ledger.load<'note'>(e).body.text : undefined
}

/**
 * The latest generation of the run with this identity, and how far it got. With `next`, a
 * finished latest generation gives a fresh one (`exp evolve --continue`).
 */
export function readRun(ledger: Ledger, identity: string, o: {next?: boolean} = {}): RunState {
  let generation = 1
  while (ledger.get(noteId(key(identity, generation + 1)))) generation++
  const state = readGeneration(ledger, identity, generation)
  if (o.next && state.finished) return {identity, generation: generation + 1, iterations: []}
  return state
}

function readGeneration(ledger: Ledger, identity: string, generation: number): RunState {
  const start = textOf(ledger, key(identity, generation))
  if (start === undefined) return {identity, generation, iterations: []}
  const iterations: RunIteration[] = []
  for (let i = 1; ; i++) {
    const e = ledger.get(noteId(key(identity, generation, i)))
    if (!e) break
    const body = ledger.load<'note'>(e).body
    const decision = body.about?.find(id => id.startsWith('dc-'))
    const note = /: no decision \((.*)\); main /.exec(body.text)?.[1]
    iterations.push({iteration: i, main: COMMIT.exec(body.text)![1]!, episodes: Number(EPISODES.exec(body.text)?.[1] ?? 0), ...(decision ? {decision} : {}), ...(note ? {note} : {})})
  }
  const done = textOf(ledger, key(identity, generation, 'done'))
  return {identity, generation, start: COMMIT.exec(start)![1]!, iterations, ...(done !== undefined ? {finished: {...(/ stopped: (.*)$/.exec(done) ? {stopped: / stopped: (.*)$/.exec(done)![1]!} : {})}} : {})}
}

export function startNote(s: RunState, o: {skill: string; lane: string; iterations: number; start: string}): RecordDraft<'note'> {
  return {kind: 'note', key: key(s.identity, s.generation), body: {text: `evolve run ${s.identity}/${s.generation} started: ${o.iterations} iteration(s) of ${o.skill} on lane ${o.lane} from main ${o.start}`, action: 'comment'}}
}

export function iterationNote(s: RunState, it: RunIteration, total: number): RecordDraft<'note'> {
  const what = it.decision ? `decision ${it.decision}` : `no decision (${it.note ?? 'no candidate'})`
  return {kind: 'note', key: key(s.identity, s.generation, it.iteration), body: {text: `evolve run ${s.identity}/${s.generation}, iteration ${it.iteration} of ${total}: ${what}; main ${it.main} after ${it.episodes} new episode(s)`, about: it.decision ? [it.decision] : [], action: 'comment'}, cites: it.decision ? [it.decision] : []}
}

export function doneNote(s: RunState, o: {iterations: number; promoted: number; rejected: number; stopped?: string}): RecordDraft<'note'> {
  return {kind: 'note', key: key(s.identity, s.generation, 'done'), body: {text: `evolve run ${s.identity}/${s.generation} finished after ${o.iterations} iteration(s): promoted ${o.promoted}, rejected ${o.rejected}${o.stopped ? `; stopped: ${o.stopped}` : ''}`, action: 'comment'}}
}
