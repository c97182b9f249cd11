import {existsSync, readdirSync, realpathSync, statSync} from 'node:fs'
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {ExpError} from '../errors/index.js'
import {runGit} from '../git/run.js'
import {GitRecordStore, discoverRepo} from '../store/index.js'
import {setUpResearch} from '../research/setup.js'
import {evolve, type EvolveResult} from '../loop/evolve.js'
import {deterministicMine} from '../loop/mine-step.js'
import {renderDashboard} from '../loop/dashboard.js'
import {readReport, writeReport} from '../reports/index.js'
import {pct} from '../reports/format.js'
import {GitWorkspace} from '../workspace/git.js'

export interface LoopDemoResult {
  dir: string
  evolve: EvolveResult
  report: string[]
}

/**
 * `exp demo`: the main job on the built-in benchmark, in a NEW repository (never the one it is
 * started from): init the onboarding example, evolve the skill with the scripted agent (no
 * API key), write the report, and say where everything is.
 */
export async function runLoopDemo(dir: string, o: {iterations: number; say: (line: string) => unknown; exp?: string; quote?: (s: string) => string}): Promise<LoopDemoResult> {
  // a demo this command began in `dir` and that was stopped (Ctrl-C, a kill): finished, as
  // `exp evolve` finishes a run, instead of refused for a folder that is not empty
  const marker = path.join(dir, '.git', 'exp', 'demo')
  const resume = existsSync(marker)
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new ExpError('E_USAGE', `${dir} is a file, not a folder`, {hint: 'pass --dir with a new or empty folder, or leave it out to use a temp folder'})
  if (!resume && existsSync(dir) && readdirSync(dir).length) throw new ExpError('E_USAGE', `${dir} is not empty`, {hint: 'pass --dir with a new or empty folder, or leave it out to use a temp folder'})
  // never inside a repository (the one it is started from, or another): the demo makes its own
  const outer = enclosingWorkTree(dir)
  if (!resume && outer) throw new ExpError('E_USAGE', `${dir} is inside ${outer.gitDir ? 'the git directory' : 'the work tree'} of the repository ${outer.at}: exp demo makes a repository of its own, and never writes into another`, {hint: 'pass --dir with a folder outside any repository, or leave it out to use a temp folder'})
  if (!resume) {
    await mkdir(dir, {recursive: true})
    await runGit(['init', '-q', '-b', 'main', '--object-format=sha1', dir], {cwd: dir})
    await mkdir(path.dirname(marker), {recursive: true})
    await writeFile(marker, 'made by exp demo: run it again to finish it\n')
  }
  const repo = discoverRepo(dir)
  await setUpResearch(repo, {mainBranch: 'main', example: 'onboarding'})
  o.say(`${resume ? 'finishing the demo in the repository' : 'repository'}: ${dir}`)
  o.say(`evolving skills/onboarding/SKILL.md with the scripted agent, up to ${o.iterations} iterations (it stops early, saying why, when no candidate is left)\n`)
  const store = await GitRecordStore.open(dir)
  try {
    const ws = new GitWorkspace(store)
    const res = await evolve(store, ws, {
      skill: 'onboarding',
      mainRef: 'refs/heads/main',
      iterations: o.iterations,
      trainRepeat: 3,
      evalRepeat: 3,
      maxRules: 8,
      recall: {items: 8, tokens: 1200},
      mine: deterministicMine,
      agent: 'scripted',
      scenariosDir: path.join(dir, 'scenarios'),
      skillsDir: path.join(dir, 'skills'),
      cwd: dir,
      repo: store.repo,
      lane: 'demo',
      seed: 42,
      concurrency: 4,
      onIteration: r => o.say(`${renderDashboard(r)}\n`),
    })
    const written = await writeReport(await readReport(store, ws, {mainRef: 'refs/heads/main', skills: ['onboarding']}), path.join(dir, 'results'))
    o.say(`held-out success: ${pct(res.holdout_before)} -> ${pct(res.holdout_after)}; promoted ${res.promoted}, rejected ${res.rejected}; ${res.episodes} episodes`)
    o.say(`report: ${written.files.find(f => f.endsWith('.html')) ?? written.files[0]}`)
    // printed to be pasted as is: the exp that runs now, the folder quoted for the shell
    const exp = o.exp ?? 'exp'
    o.say(`explore: cd ${(o.quote ?? (s => s))(dir)} && git log --graph --oneline main && ${exp} provenance onboarding && ${exp} blame onboarding && ${exp} ledger --kind decision`)
    return {dir, evolve: res, report: written.files}
  } finally {
    await store.close()
  }
}

/** The work tree of the repository the nearest existing folder of `dir` is in, if any. */
function enclosingWorkTree(dir: string): {at: string; gitDir: boolean} | undefined {
  let up = path.resolve(dir)
  while (!existsSync(up) && path.dirname(up) !== up) up = path.dirname(up)
  try {
    // (by its real path: a link to a folder inside a work tree is inside it)
    const real = realpathSync(up)
    const repo = discoverRepo(real)
    // inside its git dir (a bare repository's too) there is no work tree, and it is no place either
    if (repo.workDir && !within(real, repo.commonDir) && !within(real, repo.gitDir)) return {at: repo.workDir, gitDir: false}
    return {at: repo.workDir ?? repo.commonDir, gitDir: true}
  } catch {
    return undefined
  }
}

function within(p: string, dir: string): boolean {
  const rel = path.relative(dir, p)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}
