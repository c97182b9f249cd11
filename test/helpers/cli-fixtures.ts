import fs from 'node:fs'
import type {Test} from 'tap'
import {expJson} from './cli.js'
import {cachedFixture} from './fixture-cache.js'
import {git, tempDir} from './repo.js'
import {exampleRepo} from './evolve.js'
import {smallExampleRepo} from './loop-example.js'

const INPUTS = ['src', 'scenarios', 'skills', 'schemas', 'examples', 'test/helpers/cli-fixtures.ts', 'test/helpers/loop-example.ts', 'test/helpers/fixture-cache.ts', 'test/helpers/repo.ts']

/** The evolve run of smallEvolvedOnce: one iteration, one repetition of each split, on lane me. */
export const SMALL_EVOLVE_RUN = ['evolve', '-n', '1', '--train-repeat', '1', '--eval-repeat', '1', '--lane', 'me'] as const

/**
 * A copy, for this test, of the small example (test/helpers/loop-example.ts) after
 * SMALL_EVOLVE_RUN, with what its `--json` printed: the same command in the same starting
 * state that several tests begin with, run once per version of the code and data
 * (cachedFixture) instead of once per test. Callers copy it again to have the same run twice.
 */
export async function smallEvolvedOnce<T = unknown>(t: Test): Promise<{repo: string; evolve: T}> {
  const {dir, data} = await cachedFixture('small-evolved-once', INPUTS, async repo => {
    // the small example, as smallExampleRepo gives it (a copy this test removes), then the run
    fs.cpSync(await smallExampleRepo(t), repo, {recursive: true})
    return await expJson<T>([...SMALL_EVOLVE_RUN], {cwd: repo})
  })
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'the copy of the evolved small example is clean')
  return {repo, evolve: data}
}

/** The train run of exampleTrainedOnce: every training scenario once, on lane me. */
export const EXAMPLE_TRAIN_RUN = ['run', 'train', '--repeat', '1', '--lane', 'me'] as const

/**
 * A copy, for this test, of the built-in example (test/helpers/evolve.ts's exampleRepo) after
 * EXAMPLE_TRAIN_RUN: the training traces that the mining and proposing tests start from, run
 * once per version of the code and data (cachedFixture) instead of once per test.
 */
export function exampleTrainedOnce(t: Test): Promise<string> {
  return exampleTrained(t, 1)
}

/** exampleTrainedOnce with every training scenario run `repeat` times (real traces for a long mining). */
export async function exampleTrained(t: Test, repeat: number): Promise<string> {
  const {dir} = await cachedFixture(repeat === 1 ? 'example-trained-once' : `example-trained-${repeat}`, [...INPUTS, 'test/helpers/evolve.ts'], async repo => {
    fs.cpSync(await exampleRepo(t), repo, {recursive: true})
    await expJson(repeat === 1 ? [...EXAMPLE_TRAIN_RUN] : ['run', 'train', '--repeat', String(repeat), '--lane', 'me'], {cwd: repo})
    return {}
  })
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'the copy of the trained example is clean')
  return repo
}
