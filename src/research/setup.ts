import {access, rm} from 'node:fs/promises'
import path from 'node:path'
import type {RepoPaths} from '../store/index.js'
import {addResearchRefspecs} from '../git/refspecs.js'
import {hasNativeGit, runGit} from '../git/run.js'
import {RESEARCH_DIR} from './files.js'
import {writeResearchFiles, type InitResult} from './init.js'
import {addExample, EXAMPLES, type ExampleName, type ExampleResult} from './example.js'

export interface SetUpOptions {
  /** the branch promotions merge into, written to config.yaml */
  mainBranch: string
  /** a built-in example to copy and commit */
  example?: string
  /** commit the example without the user's hooks (git commit --no-verify) */
  noVerify?: boolean
}

export type SetUpResult = InitResult & {example?: ExampleResult}

/**
 * `exp init [--example NAME]` as one step: the .research/ files, the example (copied and
 * committed), then the remotes' refspecs. When any part fails, whatever this call created
 * in the work tree and the index is removed again, so a failed init leaves nothing behind
 * and can simply be run again.
 */
export async function setUpResearch(repo: RepoPaths, o: SetUpOptions): Promise<SetUpResult> {
  const undo = await snapshot(repo, o.example)
  let files: Awaited<ReturnType<typeof writeResearchFiles>>
  let example: ExampleResult | undefined
  try {
    files = await writeResearchFiles(repo, {mainBranch: o.mainBranch})
    example = o.example ? await addExample(repo, o.example, {noVerify: o.noVerify, wrote: files.created}) : undefined
  } catch (e) {
    await undo()
    throw e
  }
  // the remotes' refspecs last: once the example is committed there is nothing to undo
  const refspecs = await addResearchRefspecs(repo)
  const wrote = files.created.includes(`${RESEARCH_DIR}/config.yaml`)
  return {repo: repo.workDir ?? repo.gitDir, bare: repo.bare, ...(wrote ? {main_branch: o.mainBranch} : {}), ...files, refspecs, ...(example ? {example} : {})}
}

/** Paths init may create that do not exist yet, and a function removing them (from the index too). */
async function snapshot(repo: RepoPaths, example?: string): Promise<() => Promise<void>> {
  const work = repo.workDir
  if (!work) return async () => undefined
  const paths = [RESEARCH_DIR, 'knowledge', 'experience', 'skills', ...(example && example in EXAMPLES ? EXAMPLES[example as ExampleName].paths : [])]
  const fresh: string[] = []
  for (const rel of [...new Set(paths)]) if (!(await access(path.join(work, rel)).then(() => true, () => false))) fresh.push(rel)
  return async () => {
    if (fresh.length && (await hasNativeGit())) await runGit(['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', ...fresh], {cwd: work, allowFail: true})
    for (const rel of fresh) await rm(path.join(work, rel), {recursive: true, force: true})
  }
}
