import {cp, mkdir, access, lstat, readdir} from 'node:fs/promises'
import path from 'node:path'
import {ExpError, NotFoundError} from '../errors/index.js'
import {runGit, hasNativeGit} from '../git/run.js'
import type {RepoPaths} from '../store/index.js'
import {PACKAGE_ROOT} from '../package-root.js'
import {findHoldoutKey} from '../scenarios/key.js'
import {keyAdvice, sealHoldout, writeNewKey} from './seal.js'
import {keyId} from '../scenarios/sealed.js'
import {sealPrivateData} from '../attempts/private-data.js'
import {loadContract} from '../contracts/load.js'
import {existsSync} from 'node:fs'
import {refuseLinkOnTheWay} from '../work-file.js'
import {clipped} from '../errors/shown.js'

export {PACKAGE_ROOT}

export const EXAMPLES: Record<string, {description: string; paths: readonly string[]; from?: string; contract?: string}> = {
  onboarding: {
    description: 'Acme IT onboarding: 103 scenarios (train, validation, holdout), the initial onboarding skill',
    paths: ['scenarios', 'skills/onboarding'],
  },
  tuning: {
    description: 'tune an approximate nearest-neighbour index: params.json (editable), a protected harness and solver, dev data and sealed held-out data (the contract .research/contracts/tuning.yaml)',
    from: 'examples/tuning',
    paths: ['params.json', 'harness', 'solver', 'data', '.research/contracts/tuning.yaml'],
    contract: 'tuning',
  },
}

export type ExampleName = string

export interface ExampleResult {
  example: ExampleName
  copied: string[]
  kept: string[]
  commit?: string
  /** the held-out split, sealed as it was copied (docs/trust.md) */
  sealed?: {file: string; scenarios: number; key_file: string; new_key: boolean; key_id: string; advice: string[]}
}

const exists = (p: string) => access(p).then(() => true, () => false)

/** The files at or under `rel` in `dir` (paths relative to `dir`, with /), none when it is not there. */
async function filesUnder(dir: string, rel: string): Promise<string[]> {
  const st = await lstat(path.join(dir, rel)).catch(() => undefined)
  if (!st) return []
  if (!st.isDirectory()) return [rel]
  const out: string[] = []
  for (const e of await readdir(path.join(dir, rel), {withFileTypes: true})) out.push(...(await filesUnder(dir, `${rel}/${e.name}`)))
  return out
}

/**
 * Copy a built-in benchmark (scenarios, initial skill) into the work tree and commit it
 * with the .research/ files on the current branch, so promotions have a main to merge into.
 * Existing files are kept: running it again changes nothing. The user's hooks and signing
 * settings apply to that commit (`noVerify`: not the hooks). `wrote`: the files (relative to
 * the work tree) this run wrote before, committed with the example whatever the user's ignore
 * rules say, like every file the example itself writes.
 */
export async function addExample(repo: RepoPaths, name: string, o: {noVerify?: boolean; wrote?: readonly string[]} = {}): Promise<ExampleResult> {
  if (!(name in EXAMPLES)) throw new ExpError('E_USAGE', `unknown example: ${clipped(name)}`, {hint: `available: ${Object.keys(EXAMPLES).join(', ')}`})
  if (!repo.workDir) throw new ExpError('E_USAGE', 'an example needs a work tree (this repository is bare)', {hint: 'clone it first, then run `exp init --example` in the clone'})
  const missing = []
  const from = path.join(PACKAGE_ROOT, EXAMPLES[name]!.from ?? '')
  for (const rel of EXAMPLES[name]!.paths) if (!(await exists(path.join(from, rel)))) missing.push(rel)
  if (missing.length) throw new NotFoundError(`built-in example ${name}`, path.join(from, missing[0]!), 'this installation of exp is incomplete: reinstall it (npm install --global experience-compiler)')
  const copied: string[] = []
  const kept: string[] = []
  for (const rel of EXAMPLES[name]!.paths) {
    const dst = path.join(repo.workDir, rel)
    refuseLinkOnTheWay(repo.workDir, dst, true)
    if (await exists(dst)) {
      kept.push(rel)
      continue
    }
    await mkdir(path.dirname(dst), {recursive: true})
    await cp(path.join(PACKAGE_ROOT, EXAMPLES[name]!.from ?? '', rel), dst, {recursive: true})
    copied.push(rel)
  }
  let sealed: ExampleResult['sealed']
  if (copied.includes('scenarios')) {
    // the held-out split never reaches the work tree or a commit in the clear
    const keyFile = path.join(repo.commonDir, 'exp', 'holdout.key')
    const found = await findHoldoutKey({env: process.env, defaultFile: keyFile})
    const key = found?.key ?? (await writeNewKey(keyFile))
    const s = await sealHoldout(path.join(repo.workDir, 'scenarios'), key)
    sealed = {file: s.file, scenarios: s.sealed.length, key_file: found?.source ?? keyFile, new_key: !found, key_id: s.key_id, advice: found ? [] : keyAdvice(keyFile, key)}
  }
  const contract = EXAMPLES[name]!.contract
  if (contract && copied.includes('data')) {
    // the held-out data never reaches the work tree or a commit in the clear
    const keyFile = path.join(repo.commonDir, 'exp', 'holdout.key')
    const found = await findHoldoutKey({env: process.env, defaultFile: keyFile})
    const key = found?.key ?? (await writeNewKey(keyFile))
    const s = await sealPrivateData(repo.workDir, await loadContract(repo.workDir, contract), key)
    sealed = {file: s.file, scenarios: s.sealed.length, key_file: found?.source ?? keyFile, new_key: !found, key_id: keyId(key), advice: found ? [] : keyAdvice(keyFile, key)}
  }
  for (const d of ['knowledge', 'experience']) await mkdir(path.join(repo.workDir, d), {recursive: true})
  const done = (commit?: string): ExampleResult => ({example: name as ExampleName, copied, kept, ...(commit ? {commit} : {}), ...(sealed ? {sealed} : {})})
  if (!(await hasNativeGit())) return done()
  const git = (args: string[], allowFail = false) => runGit(args, {cwd: repo.workDir!, allowFail})
  // the files this run wrote, named one by one and added whatever the user's ignore rules say
  // (a global excludes file with *.yaml or .research/ silently left the scenarios or the
  // config out of the commit, or failed it); what was there before is added as git sees fit
  const privateFile = contract && sealed ? [sealed.file] : []
  const wrote = [...new Set([...(o.wrote ?? []), ...privateFile, ...(await Promise.all(copied.map(p => filesUnder(repo.workDir!, p)))).flat()])]
  if (wrote.length) await runGit(['add', '-f', '--pathspec-from-file=-', '--pathspec-file-nul'], {cwd: repo.workDir, input: Buffer.from(wrote.map(f => `${f}\0`).join(''))})
  const before = ['.research', ...kept].filter(p => existsSync(path.join(repo.workDir!, p)))
  if (before.length) await git(['add', '--', ...before], true)
  const staged = (await git(['diff', '--cached', '--name-only'])).stdout.toString().trim()
  if (!staged) return done()
  const who = (await git(['config', 'user.email'], true)).code === 0 ? [] : ['-c', 'user.name=exp', '-c', 'user.email=exp@exp.invalid']
  // the user's hooks and signing settings apply (their repository, their rules): when they
  // refuse the commit, the error says so in git's words (setup.ts removes what init created)
  const c = await git([...who, 'commit', '-q', ...(o.noVerify ? ['--no-verify'] : []), '-m', `exp: add the ${name} example\n\nThe built-in benchmark: ${EXAMPLES[name]!.description}.`], true)
  if (c.code !== 0) {
    const said = (c.stderr.trim() || c.stdout.toString().trim()).split('\n').slice(-3).join(' / ')
    throw new ExpError('E_GIT_COMMIT', `git commit of the ${name} example failed (exit ${c.code})${said ? `: ${said}` : ' without a message'}`, {
      data: {example: name, exit: c.code},
      hint: `a hook (core.hooksPath or .git/hooks) or commit signing refused exp's commit, and what this run created was removed again: fix that and run the command again${o.noVerify ? '' : ', or add --no-verify to skip the hooks for this one commit'}`,
    })
  }
  const commit = (await git(['rev-parse', 'HEAD'])).stdout.toString().trim()
  return done(commit)
}
