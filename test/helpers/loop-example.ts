import fs from 'node:fs'
import path from 'node:path'
import type {Test} from 'tap'
import {exp, ROOT} from './cli.js'
import {git, makeRepo, tempDir} from './repo.js'
import {cachedFixture} from './fixture-cache.js'
import {initResearch} from '../../src/research/init.js'
import {addExample} from '../../src/research/example.js'
import {discoverRepo} from '../../src/store/index.js'

/**
 * How many scenarios of each split the small example keeps: a third of the built-in set or
 * so, a third of the episodes per run. Not for tests that need the loop to promote: mined
 * from 18 training scenarios, its candidates do not beat the skill on 12 validation ones.
 */
export const SMALL_SPLITS = {train: 18, validation: 12, holdout: 8} as const

type Split = keyof typeof SMALL_SPLITS

/** `n` of `files`, evenly spread over the sorted list (the built-in scenarios are sorted by topic). */
function spread(files: string[], n: number): string[] {
  const sorted = [...files].sort()
  if (n >= sorted.length) return sorted
  return Array.from({length: n}, (_, i) => sorted[Math.floor((i * sorted.length) / n)]!)
}

const splitOf = (file: string): Split | undefined => {
  const m = /^split: (\w+)$/m.exec(fs.readFileSync(file, 'utf8'))
  return m ? (m[1] as Split) : undefined
}

/** The built-in scenario files the small example keeps, by split (file names under scenarios/). */
export function smallScenarioFiles(): Record<Split, string[]> {
  const dir = path.join(ROOT, 'scenarios')
  const all = fs.readdirSync(dir).filter(f => f.endsWith('.yaml'))
  const of = (split: Split) => spread(all.filter(f => splitOf(path.join(dir, f)) === split), SMALL_SPLITS[split])
  return {train: of('train'), validation: of('validation'), holdout: of('holdout')}
}

/**
 * Copy the small example's plain scenarios (held-out ones in the clear) into `dir`: for
 * in-process runs that read a scenarios folder, where what is asserted does not depend on
 * how many scenarios there are.
 */
export function copySmallScenarios(dir: string): void {
  fs.mkdirSync(dir, {recursive: true})
  const files = smallScenarioFiles()
  for (const f of [...files.train, ...files.validation, ...files.holdout]) fs.copyFileSync(path.join(ROOT, 'scenarios', f), path.join(dir, f))
}

const INPUTS = ['src', 'scenarios', 'skills', 'schemas', 'examples', 'test/helpers/loop-example.ts', 'test/helpers/fixture-cache.ts', 'test/helpers/repo.ts']

/**
 * The built-in example (`exp init --example onboarding` on main) cut to SMALL_SPLITS: the
 * train and validation files it does not keep are deleted, the held-out split is sealed again
 * from the kept files, in one more commit. For loop tests whose assertions hold for any set
 * of scenarios (sharding, trust boundaries, what an agent can see): each run has about a
 * third of the episodes of the full example. Built once per version of the code and data
 * (cachedFixture); each caller gets its own copy. test/helpers/evolve.ts's exampleRepo is
 * the full example, for tests whose figures depend on its size.
 */
export async function smallExampleRepo(t: Test): Promise<string> {
  const {dir} = await cachedFixture('example-small', INPUTS, async repo => {
    await git(repo, 'init', '-q', '-b', 'main')
    await git(repo, 'config', 'user.name', 'exp test')
    await git(repo, 'config', 'user.email', 'test@exp.invalid')
    const init = await exp(['init', '--example', 'onboarding'], {cwd: repo})
    if (init.code !== 0) throw new Error(`exp init failed: ${init.stderr}`)
    const keep = smallScenarioFiles()
    const scenarios = path.join(repo, 'scenarios')
    for (const f of fs.readdirSync(scenarios)) if (f.endsWith('.yaml') && !keep.train.includes(f) && !keep.validation.includes(f)) fs.rmSync(path.join(scenarios, f))
    fs.rmSync(path.join(scenarios, 'holdout.sealed'))
    for (const f of keep.holdout) fs.copyFileSync(path.join(ROOT, 'scenarios', f), path.join(scenarios, f))
    const seal = await exp(['seal'], {cwd: repo})
    if (seal.code !== 0) throw new Error(`exp seal failed: ${seal.stderr}`)
    await git(repo, 'add', '-A', 'scenarios')
    await git(repo, 'commit', '-qm', 'a smaller example: a third of the scenarios')
    return {}
  })
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'the copy of the small example is clean')
  return repo
}

/**
 * A fresh repository holding the small example's scenarios (held-out ones in the clear) and
 * the built-in skills: test/helpers/research.ts's benchmarkRepo with a third of the
 * episodes, for in-process runs whose assertions hold for any set of scenarios.
 */
export async function smallBenchmarkRepo(t: {teardown(fn: () => void): void}): Promise<string> {
  const repo = await makeRepo(t)
  copySmallScenarios(path.join(repo, 'scenarios'))
  fs.cpSync(path.join(ROOT, 'skills'), path.join(repo, 'skills'), {recursive: true})
  fs.mkdirSync(path.join(repo, '.research'), {recursive: true})
  return repo
}

/**
 * The built-in example in a new repository, with a policy whose token tolerance lets a long
 * skill through: eight expert rules make a skill whose tokens per episode may grow past the
 * default tolerance, and the tests using it are about what a promotion does, not that cost.
 */
export async function promotionRepo(t: {teardown(fn: () => void): void}): Promise<string> {
  const repo = await makeRepo(t)
  await initResearch(discoverRepo(repo))
  await addExample(discoverRepo(repo), 'onboarding')
  const policy = path.join(repo, '.research/policy.yaml')
  fs.writeFileSync(policy, fs.readFileSync(policy, 'utf8').replace(/^ {2}tokens: 0\.5$/m, '  tokens: 1'))
  await git(repo, 'commit', '-qam', 'policy: tokens may double')
  return repo
}
