import fs from 'node:fs'
import path from 'node:path'
import type {Test} from 'tap'
import {exp, expJson} from './cli.js'
import {git, makeRepo, tempDir} from './repo.js'
import {cachedFixture} from './fixture-cache.js'

/** What `exp evolve --json` prints, as far as the loop tests read it. */
export interface EvolveJson {
  iterations: {iteration: number; proposal?: {id: string}; decision?: {id: string; verdict: string; merge?: string}; new_episodes?: {train: number; validation: number; holdout: number; total: number}; holdout?: {baseline: number; candidate: number}}[]
  holdout_before: number
  holdout_after: number
  promoted: number
  rejected: number
  episodes: number
  reached_85?: {episodes: number}
  reached: {level: number; iteration: number; episodes: number}[]
  episodes_per_iteration: number[]
}

const EXAMPLE_INPUTS = ['src', 'scenarios', 'skills', 'schemas', 'examples', 'test/helpers/evolve.ts', 'test/helpers/fixture-cache.ts', 'test/helpers/repo.ts']

/**
 * A fresh repository with the built-in example (`exp init --example onboarding` in an empty
 * repository on main). Without `env`, a copy of one such repository made once per version of
 * the code and data (cachedFixture): about two dozen tests start here, and `exp init` is what
 * test/research/init.test.ts tests. With `env` (pinned dates, say), `exp init` runs in it.
 */
export async function exampleRepo(t: Test, env: NodeJS.ProcessEnv = {}): Promise<string> {
  if (Object.keys(env).length === 0) {
    const {dir} = await cachedFixture('example', EXAMPLE_INPUTS, async repo => {
      await git(repo, 'init', '-q', '-b', 'main')
      await git(repo, 'config', 'user.name', 'exp test')
      await git(repo, 'config', 'user.email', 'test@exp.invalid')
      const init = await exp(['init', '--example', 'onboarding'], {cwd: repo})
      if (init.code !== 0) throw new Error(`exp init failed: ${init.stderr}`)
      return {}
    })
    const repo = tempDir(t)
    fs.cpSync(dir, repo, {recursive: true})
    t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'the copy of the initialized example is clean')
    return repo
  }
  const repo = await makeRepo(t, {empty: true})
  const r = await exp(['init', '--example', 'onboarding'], {cwd: repo, env})
  t.equal(r.code, 0, r.stderr)
  return repo
}

/**
 * A copy, for this test, of the example after one iteration of `exp evolve` on lane alice
 * (`exp init --example onboarding` and `exp evolve -n 1` with EXP_LANE=alice), built once per
 * version of the code and data (cachedFixture): the tests of the views start from an honest
 * proposal, its evaluations and its decision, and forge records beside them.
 */
export async function oneIterationAsAlice(t: Test): Promise<string> {
  const {dir} = await cachedFixture('one-iteration-alice', EXAMPLE_INPUTS, async repo => {
    await git(repo, 'init', '-q', '-b', 'main')
    await git(repo, 'config', 'user.name', 'exp test')
    await git(repo, 'config', 'user.email', 'test@exp.invalid')
    for (const args of [['init', '--example', 'onboarding'], ['evolve', '-n', '1']]) {
      const r = await exp(args, {cwd: repo, env: {EXP_LANE: 'alice'}})
      if (r.code !== 0) throw new Error(`exp ${args.join(' ')} failed: ${r.stderr}`)
    }
    return {}
  })
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  return repo
}

/** How many scenarios of a split the repository's scenarios/ folder holds (the built-in set grows). */
export function splitSize(repo: string, split: 'train' | 'validation' | 'holdout'): number {
  const dir = path.join(repo, 'scenarios')
  return fs.readdirSync(dir).filter(f => f.endsWith('.yaml') && new RegExp(`^split: ${split}$`, 'm').test(fs.readFileSync(path.join(dir, f), 'utf8'))).length
}

/** The acceptance run of the built-in example (test/loop/acceptance.test.ts): fewer repetitions, the same loop. */
export const ACCEPTANCE_RUN = ['evolve', '--iterations', '10', '--eval-repeat', '2', '--lane', 'me']

const EVOLVED_INPUTS = ['src', 'scenarios', 'skills', 'schemas', 'examples', 'test/helpers/evolve.ts', 'test/helpers/fixture-cache.ts']

/**
 * A copy, for this test, of a repository where `exp init --example onboarding` and then
 * ACCEPTANCE_RUN ran as a new user runs them, with what `exp evolve --json` printed. Built
 * once per version of the code and data (about a minute of episodes) and shared through
 * cachedFixture by the acceptance test and the fresh-set test.
 */
export async function evolvedExample(t: Test): Promise<{repo: string; evolve: EvolveJson}> {
  const {dir, data} = await cachedFixture('evolved', EVOLVED_INPUTS, async repo => {
    await git(repo, 'init', '-q', '-b', 'main')
    await git(repo, 'config', 'user.name', 'exp test')
    await git(repo, 'config', 'user.email', 'test@exp.invalid')
    const init = await exp(['init', '--example', 'onboarding'], {cwd: repo})
    if (init.code !== 0) throw new Error(`exp init failed: ${init.stderr}`)
    return await expJson<EvolveJson>(ACCEPTANCE_RUN, {cwd: repo})
  })
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  return {repo, evolve: data}
}
