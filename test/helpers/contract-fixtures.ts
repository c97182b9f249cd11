import fs from 'node:fs'
import path from 'node:path'
import type {Test} from 'tap'
import {exp, type CliResult} from './cli.js'
import {quadRepo} from './contracts.js'
import {cachedFixture} from './fixture-cache.js'
import {git, tempDir} from './repo.js'

const INPUTS = ['src', 'schemas', 'test/helpers/contracts.ts', 'test/helpers/contract-fixtures.ts', 'test/helpers/fixture-cache.ts', 'test/helpers/repo.ts']

interface Promoted {
  a: {id: string; path: string}
  promote: CliResult
}

/**
 * A copy, for this test, of the quad repository (as quadFixture's) in which an attempt of
 * lane p that sets params.json to {"x": 4, "y": 2} was opened and promoted (`exp attempt new
 * quad --lane p`, `exp attempt promote ID --lane p`): made once per version of the code
 * (cachedFixture). The promotion removed the attempt's work tree, so nothing in the copy names
 * the folder it was made in. `promote` is that command's result, for the test to assert.
 */
export async function promotedQuad(t: Test): Promise<{repo: string; a: {id: string; path: string}; promote: CliResult}> {
  const {dir, data} = await cachedFixture<Promoted>('quad-promoted', INPUTS, async repo => {
    await git(repo, 'init', '-q', '-b', 'main')
    await git(repo, 'config', 'user.name', 'exp test')
    await git(repo, 'config', 'user.email', 'test@exp.invalid')
    await git(repo, 'commit', '-q', '--allow-empty', '-m', 'init')
    await quadRepo(repo, args => exp(args, {cwd: repo}))
    const a = JSON.parse((await exp(['attempt', 'new', 'quad', '--json', '--lane', 'p'], {cwd: repo})).stdout) as {id: string; path: string}
    fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": 4, "y": 2}\n')
    const promote = await exp(['attempt', 'promote', a.id, '--lane', 'p', '--json'], {cwd: repo})
    return {a: {id: a.id, path: path.relative(repo, a.path)}, promote}
  })
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  // (git status refreshes the copied index's file times, as quadFixture's copy does: git read-tree -m needs them)
  if ((await git(repo, 'status', '--porcelain')).trim() !== '') throw new Error(`the copy of the promoted quad fixture is not clean: ${repo}`)
  return {repo, a: {id: data.a.id, path: path.join(repo, data.a.path)}, promote: data.promote}
}
