import {cpSync, mkdirSync} from 'node:fs'
import path from 'node:path'
import {ROOT} from './cli.js'
import {makeRepo} from './repo.js'
import type {RunOptions} from '../../src/evals/runner/run.js'
import type {Split} from '../../src/records/types.js'

/** A fresh repository holding a copy of the built-in benchmark (scenarios, skills). */
export async function benchmarkRepo(t: {teardown(fn: () => void): void}): Promise<string> {
  const repo = await makeRepo(t)
  cpSync(path.join(ROOT, 'scenarios'), path.join(repo, 'scenarios'), {recursive: true})
  cpSync(path.join(ROOT, 'skills'), path.join(repo, 'skills'), {recursive: true})
  mkdirSync(path.join(repo, '.research'), {recursive: true})
  return repo
}

export const runOpts = (repo: string, extra: Partial<RunOptions> & {split: Split}): RunOptions => ({
  scenariosDir: path.join(repo, 'scenarios'),
  skillsDir: path.join(repo, 'skills'),
  cwd: repo,
  lane: 'tester',
  agent: 'scripted',
  now: () => new Date('2026-11-30T12:00:00.000Z'),
  ...extra,
})
