import {mkdir, writeFile, access} from 'node:fs/promises'
import path from 'node:path'
import type {RepoPaths} from '../store/index.js'
import {addResearchRefspecs} from '../store/git/setup.js'
import {RESEARCH_DIR} from './files.js'
import {CONFIG_YAML, CONTRACT_YAML, POLICY_YAML} from './templates.js'

export interface InitResult {
  repo: string
  bare: boolean
  created: string[]
  kept: string[]
  refspecs: string[]
}

async function exists(f: string): Promise<boolean> {
  return access(f).then(() => true, () => false)
}

/** Write the .research/ defaults (never overwriting) and the research refspecs of every remote. Idempotent. */
export async function initResearch(repo: RepoPaths): Promise<InitResult> {
  const created: string[] = []
  const kept: string[] = []
  if (repo.workDir) {
    await mkdir(path.join(repo.workDir, RESEARCH_DIR), {recursive: true})
    for (const [name, text] of [['config.yaml', CONFIG_YAML], ['contract.yaml', CONTRACT_YAML], ['policy.yaml', POLICY_YAML]] as const) {
      const rel = `${RESEARCH_DIR}/${name}`
      const file = path.join(repo.workDir, rel)
      if (await exists(file)) kept.push(rel)
      else {
        await writeFile(file, text)
        created.push(rel)
      }
    }
  }
  const refspecs = await addResearchRefspecs(repo)
  return {repo: repo.workDir ?? repo.gitDir, bare: repo.bare, created, kept, refspecs}
}
