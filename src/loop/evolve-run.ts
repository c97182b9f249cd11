import {digestOf, type RecordDraft} from '../records/index.js'
import {baseKey, ownKey, type Ledger, type LedgerEntry} from '../store/index.js'
import type {EvolveOptions} from './evolve.js'

/**
 * An `exp evolve` run is identified by its options (skill, lane, agent, seed, repetitions,
 * iterations, budgets) and a generation: the same command started again is the same run and
 * finishes it (docs/loop.md). Its progress is in `note` records with keys of their own:
 * `evolve/<identity>/<generation>` when it starts (on which main commit), one per finished
 * iteration (which decision, which main after it, how many episodes) and one when it is done.
 * They are written after the work they describe, so a run killed at any point finds the
 * last iteration it finished and goes on from the main that iteration left.
 *
 * Only the run's own lane counts: a key's id names no lane, so another lane can write a note
 * under the key of a run it can predict (the identity is a digest of options anyone can
 * guess) — "finished" before the run began. The notes are read from the run's lane alone, and
 * a key whose id another lane's record holds is written salted with the lane, then numbered
 * past salted keys other lanes hold too (store/own.ts ownKeys).
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
const COMMIT = /\bmain ([0-9a-f]{40})\b/
const EPISODES = /\b(\d+) new episode\(s\)/

type RunNote = {text: string; about?: string[]}

/** The run's notes on its own lane, by key (a lane-salted key under its key). */
function notesOf(ledger: Ledger, identity: string, lane: string): Map<string, RunNote> {
  const out = new Map<string, RunNote>()
  const prefix = `evolve/${identity}/`
  const own = (e: LedgerEntry) => e.kind === 'note' && e.lane === lane && !e.private
  // (a copy of another lane's record with the same bytes is this lane's too: src/store/own.ts)
  for (const e of [...ledger.select({kinds: ['note'], lanes: [lane], includePrivate: false}), ...ledger.duplicates.filter(own)]) {
    const r = ledger.load<'note'>(e)
    const k = r.key === undefined ? undefined : baseKey(r.key, lane)
    if (k?.startsWith(prefix) && !out.has(k)) out.set(k, r.body)
  }
  return out
}

/**
 * The latest generation of the run with this identity on `lane`, and how far it got. With
 * `next`, a finished latest generation gives a fresh one (`exp evolve --continue`).
 */
export function readRun(ledger: Ledger, identity: string, lane: string, o: {next?: boolean} = {}): RunState {
  const notes = notesOf(ledger, identity, lane)
  let generation = 1
  while (notes.has(key(identity, generation + 1))) generation++
  const state = readGeneration(notes, identity, generation)
  if (o.next && state.finished) return {identity, generation: generation + 1, iterations: []}
  return state
}

function readGeneration(notes: Map<string, RunNote>, identity: string, generation: number): RunState {
  const start = notes.get(key(identity, generation))?.text
  const from = start === undefined ? undefined : COMMIT.exec(start)?.[1]
  if (from === undefined) return {identity, generation, iterations: []}
  const iterations: RunIteration[] = []
  for (let i = 1; ; i++) {
    const body = notes.get(key(identity, generation, i))
    const main = body && COMMIT.exec(body.text)?.[1]
    if (!body || !main) break
    const decision = body.about?.find(id => id.startsWith('dc-'))
    const note = /: no decision \((.*)\); main /.exec(body.text)?.[1]
    iterations.push({iteration: i, main, episodes: Number(EPISODES.exec(body.text)?.[1] ?? 0), ...(decision ? {decision} : {}), ...(note ? {note} : {})})
  }
  const done = notes.get(key(identity, generation, 'done'))?.text
  return {identity, generation, start: from, iterations, ...(done !== undefined ? {finished: {...(/ stopped: (.*)$/.exec(done) ? {stopped: / stopped: (.*)$/.exec(done)![1]!} : {})}} : {})}
}

export function startNote(ledger: Ledger, s: RunState, o: {skill: string; lane: string; iterations: number; start: string}): RecordDraft<'note'> {
  return {kind: 'note', key: ownKey(ledger, 'note', key(s.identity, s.generation), o.lane), body: {text: `evolve run ${s.identity}/${s.generation} started: ${o.iterations} iteration(s) of ${o.skill} on lane ${o.lane} from main ${o.start}`, action: 'comment'}}
}

export function iterationNote(ledger: Ledger, lane: string, s: RunState, it: RunIteration, total: number): RecordDraft<'note'> {
  const what = it.decision ? `decision ${it.decision}` : `no decision (${it.note ?? 'no candidate'})`
  return {kind: 'note', key: ownKey(ledger, 'note', key(s.identity, s.generation, it.iteration), lane), body: {text: `evolve run ${s.identity}/${s.generation}, iteration ${it.iteration} of ${total}: ${what}; main ${it.main} after ${it.episodes} new episode(s)`, about: it.decision ? [it.decision] : [], action: 'comment'}, cites: it.decision ? [it.decision] : []}
}

export function doneNote(ledger: Ledger, lane: string, s: RunState, o: {iterations: number; promoted: number; rejected: number; stopped?: string}): RecordDraft<'note'> {
  return {kind: 'note', key: ownKey(ledger, 'note', key(s.identity, s.generation, 'done'), lane), body: {text: `evolve run ${s.identity}/${s.generation} finished after ${o.iterations} iteration(s): promoted ${o.promoted}, rejected ${o.rejected}${o.stopped ? `; stopped: ${o.stopped}` : ''}`, action: 'comment'}}
}
