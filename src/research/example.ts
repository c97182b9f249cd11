import {cp, mkdir, readdir, access} from 'node:fs/promises'
import path from 'node:path'
import {ExpError} from '../errors/index.js'
import {runGit, hasNativeGit} from '../store/git/native.js'
import type {RepoPaths} from '../store/index.js'
import {PACKAGE_ROOT} from '../package-root.js'

export {PACKAGE_ROOT}

export const EXAMPLES = {
  onboarding: {
    description: 'Acme IT onboarding: 103 scenarios (train, validation, holdout), the initial onboarding skill',
    paths: ['scenarios', 'skills/onboarding'],
  },
} as const

export type ExampleName = keyof typeof EXAMPLES

export interface ExampleResult {
  example: ExampleName
  copied: string[]
  kept: string[]
  commit?: string
}

const exists = (p: string) => access(p).then(() => true, () => false)

/**
 * Copy a built-in benchmark (scenarios, initial skill) into the work tree and commit it
 * with the .research/ files on the current branch, so promotions have a main to merge into.
 * Existing files are kept: running it again changes nothing.
 */
export async function addExample(repo: RepoPaths, name: string): Promise<ExampleResult> {
  if (!(name in EXAMPLES)) throw new ExpError('E_USAGE', `unknown example: ${name}`, {hint: `available: ${Object.keys(EXAMPLES).join(', ')}`})
  if (!repo.workDir) throw new ExpError('E_USAGE', 'an example needs a work tree (this repository is bare)', {hint: 'clone it first, then run `exp init --example` in the clone'})
  const copied: string[] = []
  const kept: string[] = []
  for (const rel of EXAMPLES[name as ExampleName].paths) {
    const dst = path.join(repo.workDir, rel)
    if (await exists(dst)) {
      kept.push(rel)
      continue
    }
    await mkdir(path.dirname(dst), {recursive: true})
    await cp(path.join(PACKAGE_ROOT, rel), dst, {recursive: true})
    copied.push(rel)
  }
  for (const d of ['knowledge', 'experience']) await mkdir(path.join(repo.workDir, d), {recursive: true})
  if (!(await hasNativeGit())) return {example: name as ExampleName, copied, kept}
  const git = (args: string[], allowFail = false) => runGit(args, {cwd: repo.workDir!, allowFail})
  await git(['add', '--', '.research', ...EXAMPLES[name as ExampleName].paths])
  const staged = (await git(['diff', '--cached', '--name-only'])).stdout.toString().trim()
  if (!staged) return {example: name as ExampleName, copied, kept}
  const who = (await git(['config', 'user.email'], true)).code === 0 ? [] : ['-c', 'user.name=exp', '-c', 'user.email=exp@exp.invalid']
  await git([...who, 'commit', '-q', '-m', `exp: add the ${name} example\n\nThe built-in benchmark: ${EXAMPLES[name as ExampleName].description}.`])
  const commit = (await git(['rev-parse', 'HEAD'])).stdout.toString().trim()
  void readdir
  return {example: name as ExampleName, copied, kept, commit}
}
