import fs from 'node:fs'
import type {Test} from 'tap'
import {exp, type CliResult} from './cli.js'
import {cachedFixture} from './fixture-cache.js'
import {git, tempDir} from './repo.js'

const INPUTS = ['src', 'scenarios', 'skills', 'schemas', 'examples', 'test/helpers/gate-fixtures.ts', 'test/helpers/fixture-cache.ts', 'test/helpers/repo.ts']

/**
 * A copy, for this test, of a repository as makeRepo leaves it (main with one empty commit)
 * in which `exp init --example onboarding` ran: made once per version of the code and data
 * (cachedFixture). `init` is that command's result, for the test to assert as when it ran there.
 */
export async function onboardingOnCommit(t: Test): Promise<{repo: string; init: CliResult}> {
  const {dir, data} = await cachedFixture<CliResult>('onboarding-on-commit', INPUTS, async repo => {
    await git(repo, 'init', '-q', '-b', 'main')
    await git(repo, 'config', 'user.name', 'exp test')
    await git(repo, 'config', 'user.email', 'test@exp.invalid')
    await git(repo, 'commit', '-q', '--allow-empty', '-m', 'init')
    return exp(['init', '--example', 'onboarding'], {cwd: repo})
  })
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  return {repo, init: data}
}
