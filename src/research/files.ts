import path from 'node:path'
import {assertResearchFile, parseYamlOrJson, digestOf} from '../records/index.js'
import type {ResearchConfig, ResearchContract, PromotionPolicy} from '../records/types.js'
import {NotFoundError, isExpError} from '../errors/index.js'
import {readWorkFile} from '../work-file.js'

export const RESEARCH_DIR = '.research'

async function load<T>(workDir: string, name: 'config' | 'contract' | 'policy'): Promise<T | undefined> {
  const file = path.join(workDir, RESEARCH_DIR, `${name}.yaml`)
  let text: string
  try {
    text = (await readWorkFile(file)).toString('utf8')
  } catch (e) {
    if (isExpError(e)) throw e // a device, a FIFO or a huge file: named, not taken for a missing file
    return undefined
  }
  const rel = path.join(RESEARCH_DIR, `${name}.yaml`)
  const doc = await parseYamlOrJson(text, rel)
  assertResearchFile(name, doc, rel)
  return doc as T
}

export async function loadConfig(workDir: string): Promise<ResearchConfig> {
  return (await load<ResearchConfig>(workDir, 'config')) ?? {version: 1}
}

export async function loadContract(workDir: string): Promise<ResearchContract | undefined> {
  return load<ResearchContract>(workDir, 'contract')
}

export interface LoadedPolicy {
  policy: PromotionPolicy
  digest: string
  path: string
}

export async function loadPolicy(workDir: string): Promise<LoadedPolicy> {
  const policy = await load<PromotionPolicy>(workDir, 'policy')
  if (!policy) throw new NotFoundError('promotion policy', `${RESEARCH_DIR}/policy.yaml`, 'run `exp init` to write the default policy')
  return {policy, digest: digestOf(policy), path: `${RESEARCH_DIR}/policy.yaml`}
}
