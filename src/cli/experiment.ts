import type {GitRecordStore} from '../store/index.js'
import type {ExperimentOptions} from '../loop/compare/run.js'
import {runContext, type RunFlagValues} from './run-context.js'
import {checkExploreRate} from '../evals/runner/explore.js'

/** The flags `exp compare` and `exp gain` share (each command words them for its own sides). */
export interface ExperimentFlags extends RunFlagValues {
  skill: string
  'budget-episodes': number
  iterations: number
  'train-repeat': number
  repeat: number
  'max-rules'?: number
  explore: string
}

/**
 * Run an experiment of several loops (`exp compare`, `exp gain`) with the options its flags and
 * .research/config.yaml give, progress on a terminal's stderr, and the events file closed after.
 */
export async function runExperiment<T>(store: GitRecordStore, cwd: string, flags: ExperimentFlags, note: (line: string) => void, run: (o: ExperimentOptions) => Promise<T>): Promise<T> {
  const exploreRate = checkExploreRate(flags.explore)
  const {options, config, mainRef} = await runContext(store, cwd, flags, note)
  try {
    return await run({
      ...options,
      skill: flags.skill,
      mainRef,
      budgetEpisodes: flags['budget-episodes'],
      iterations: flags.iterations,
      trainRepeat: flags['train-repeat'],
      evalRepeat: flags.repeat,
      maxRules: flags['max-rules'] ?? config.recall?.items ?? 8,
      recall: {items: config.recall?.items ?? 8, tokens: config.recall?.tokens ?? 1200},
      ...(exploreRate ? {exploreRate} : {}),
      onStep: step => process.stderr.isTTY && process.stderr.write(`\r${step}\x1b[K`),
    })
  } finally {
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K')
    await options.events?.close()
  }
}
