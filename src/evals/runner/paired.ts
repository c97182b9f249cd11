import type {EvaluationBody} from '../../records/types.js'
import type {RecordStore} from '../../store/index.js'
import {compareRuns, type Comparison} from '../compare.js'
import type {RunOptions, RunResult} from './run.js'
import {RunSession, type Slot} from './session.js'

/** What a paired evaluation shows the stopping rule after each pass. */
export interface PassState {
  look: number
  looks: number
  /** scenarios per pass */
  scenarios: number
  baseline: EvaluationBody
  candidate: EvaluationBody & {comparison: Comparison}
}

export interface PairedOptions {
  baseline: Omit<RunOptions, 'repeat' | 'decorate'>
  candidate: Omit<RunOptions, 'repeat' | 'decorate'>
  /** passes over the split at most; both manifests pin it as their repeat, so the episodes are those of a full run */
  looks: number
  /** after a pass: stop (and record both evaluations of the passes so far), or run another */
  stop: (s: PassState) => {stop: boolean; why: string}
}

export interface PairedResult {
  baseline: RunResult
  candidate: RunResult
  comparison: Comparison
  /** the pass it stopped after, and why */
  look: number
  looks: number
  why: string
  /** the comparison after each pass that was run */
  passes: {look: number; wins: number; losses: number; ties: number; why: string}[]
}

const PENDING = 'el-000000000000000000000000'

/**
 * Sequential paired evaluation: the current skill and the candidate are run on the same
 * places (scenario, repetition) with the same seeds, one pass over the split at a time, and
 * after each pass the caller's stopping rule (the policy's test, src/loop/policy.ts) says
 * whether to stop. Only the passes run are recorded as the two evaluations (each repetition
 * of every scenario a pass); a candidate that decides early costs a fraction of a full run.
 * The baseline's episodes are the base skill's episodes of this manifest, whoever recorded
 * them — every candidate of the same base reuses them.
 */
export async function runPaired(store: RecordStore, o: PairedOptions): Promise<PairedResult> {
  const b = await RunSession.open(store, {...o.baseline, repeat: o.looks})
  let c: RunSession | undefined
  try {
    c = await RunSession.open(store, {...o.candidate, repeat: o.looks})
    const passes: PairedResult['passes'] = []
    const upTo = (s: RunSession, look: number) => s.slots.filter(x => x.rep < look)
    const pass = (s: RunSession, look: number): Slot[] => s.slots.filter(x => x.rep === look - 1)
    for (let look = 1; ; look++) {
      await b.ensure(pass(b, look))
      await c.ensure(pass(c, look))
      const bv = b.verified(upTo(b, look))
      const cv = c.verified(upTo(c, look))
      const comparison = compareRuns(PENDING, bv, cv)
      const state: PassState = {look, looks: o.looks, scenarios: b.dataset.scenarios.length, baseline: b.summary(bv, look), candidate: {...c.summary(cv, look), comparison}}
      const d = look >= o.looks ? {stop: true, why: o.stop(state).why} : o.stop(state)
      passes.push({look, wins: comparison.wins, losses: comparison.losses, ties: comparison.ties, why: d.why})
      if (!d.stop) continue
      const baseline = await b.record(bv, {repeat: look})
      let final: Comparison | undefined
      const candidate = await c.record(cv, {repeat: look, decorate: (full, verified) => ({...full, comparison: (final = compareRuns(baseline.private_evaluation ?? baseline.evaluation, baseline.verified, verified))})})
      return {baseline, candidate, comparison: final!, look, looks: o.looks, why: d.why, passes}
    }
  } catch (e) {
    b.failed(e)
    c?.failed(e)
    throw e
  } finally {
    await b.close()
    await c?.close()
  }
}
