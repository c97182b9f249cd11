import {mkdir, writeFile, access} from 'node:fs/promises'
import path from 'node:path'
import type {RepoPaths} from '../store/index.js'
import {addResearchRefspecs} from '../git/refspecs.js'
import {RESEARCH_DIR} from './files.js'
import {configYaml, POLICY_YAML, SKILLS_CONTRACT_YAML} from './templates.js'
import {refuseLinkOnTheWay} from '../work-file.js'

export interface InitResult {
  repo: string
  bare: boolean
  /** the branch recorded as main_branch (when config.yaml was written now) */
  main_branch?: string
  created: string[]
  kept: string[]
  refspecs: string[]
}

export interface InitOptions {
  /** the branch promotions merge into, written to config.yaml (default main) */
  mainBranch?: string
}

async function exists(f: string): Promise<boolean> {
  return access(f).then(() => true, () => false)
}

/** Write the .research/ defaults, never overwriting. Returns what was created and what kept. */
export async function writeResearchFiles(repo: RepoPaths, o: InitOptions = {}): Promise<{created: string[]; kept: string[]}> {
  const created: string[] = []
  const kept: string[] = []
  if (!repo.workDir) return {created, kept}
  // (a committed `.research -> elsewhere` would take these files out of the work tree)
  refuseLinkOnTheWay(repo.workDir, path.join(repo.workDir, RESEARCH_DIR, 'contracts', 'skills.yaml'))
  await mkdir(path.join(repo.workDir, RESEARCH_DIR, 'contracts'), {recursive: true})
  for (const [name, text] of [['config.yaml', configYaml(o.mainBranch ?? 'main')], ['contracts/skills.yaml', SKILLS_CONTRACT_YAML], ['policy.yaml', POLICY_YAML]] as const) {
    const rel = `${RESEARCH_DIR}/${name}`
    const file = path.join(repo.workDir, rel)
    if (await exists(file)) kept.push(rel)
    else {
      // wx: a new file, never through a (dangling) link at its name
      await writeFile(file, text, {flag: 'wx'})
      created.push(rel)
    }
  }
  return {created, kept}
}

/** Write the .research/ defaults (never overwriting) and the research refspecs of every remote. Idempotent. */
export async function initResearch(repo: RepoPaths, o: InitOptions = {}): Promise<InitResult> {
  const {created, kept} = await writeResearchFiles(repo, o)
  const refspecs = await addResearchRefspecs(repo)
  const wrote = created.includes(`${RESEARCH_DIR}/config.yaml`)
  return {repo: repo.workDir ?? repo.gitDir, bare: repo.bare, ...(wrote ? {main_branch: o.mainBranch ?? 'main'} : {}), created, kept, refspecs}
}
