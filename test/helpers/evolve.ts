import fs from 'node:fs'
import path from 'node:path'
import type {Test} from 'tap'
import {exp} from './cli.js'
import {makeRepo} from './repo.js'

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

/** A fresh repository with the built-in example (`exp init --example onboarding`). */
export async function exampleRepo(t: Test, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const repo = await makeRepo(t, {empty: true})
  const r = await exp(['init', '--example', 'onboarding'], {cwd: repo, env})
  t.equal(r.code, 0, r.stderr)
  return repo
}

/** How many scenarios of a split the repository's scenarios/ folder holds (the built-in set grows). */
export function splitSize(repo: string, split: 'train' | 'validation' | 'holdout'): number {
  const dir = path.join(repo, 'scenarios')
  return fs.readdirSync(dir).filter(f => f.endsWith('.yaml') && new RegExp(`^split: ${split}$`, 'm').test(fs.readFileSync(path.join(dir, f), 'utf8'))).length
}
