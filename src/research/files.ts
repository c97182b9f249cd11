import path from 'node:path'
import {assertResearchFile, parseYamlOrJson, digestOf} from '../records/index.js'
import type {ResearchConfig, ResearchContract, PromotionPolicy} from '../records/types.js'
import {ExpError, NotFoundError, isExpError} from '../errors/index.js'
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
  if (name === 'config') {
    refuseEndpoint(doc, rel)
    refuseLane(doc, rel)
    refuseMovedSkills(doc, rel)
  }
  assertResearchFile(name, doc, rel)
  return doc as T
}

/**
 * Where an openai client sends its requests, and with which key, is the user's to say (their
 * environment), never a committed file's: a cloned repository whose config named its own
 * endpoint got the user's OPENAI_API_KEY sent there, and one naming `api_key_env:
 * AWS_SECRET_ACCESS_KEY` any variable of theirs as a bearer token.
 */
function refuseEndpoint(doc: unknown, rel: string): void {
  const openai = (doc as {openai?: unknown} | null)?.openai
  if (!openai || typeof openai !== 'object') return
  for (const field of ['base_url', 'api_key_env'] as const) {
    if (field in openai) throw new ExpError('E_SCHEMA', `${rel}: openai.${field} is not taken from a file in the repository (a cloned repository could send your API key, or any variable of your environment, to a server of its choosing)`, {data: {file: rel, field: `openai.${field}`}, hint: `remove openai.${field} from ${rel}; set ${field === 'base_url' ? 'OPENAI_BASE_URL' : 'OPENAI_API_KEY'} in your environment instead`})
  }
}

/**
 * A lane is one writer's: a committed `lane:` is every clone's, so every clone would write the
 * same lane and the copies would diverge (`exp sync` refuses a diverged lane). Each clone says
 * its own: --lane, EXP_LANE or `git config exp.lane`, else user@host.
 */
function refuseLane(doc: unknown, rel: string): void {
  if (!doc || typeof doc !== 'object' || !('lane' in doc)) return
  throw new ExpError('E_SCHEMA', `${rel}: lane is not taken from a file in the repository (every clone would write the same lane, and their copies of it would diverge)`, {data: {file: rel, field: 'lane'}, hint: `remove lane from ${rel}; each clone names its own lane with --lane, EXP_LANE or \`git config exp.lane NAME\` (default: user@host)`})
}

/**
 * Skills live in skills/: the gate, the trust checks, proposals and their branches, blame and
 * provenance all name skills/NAME/ paths of the main branch, so a moved folder would be read
 * by some commands (run, skills lint) and not by others. `skills: skills` (what exp init
 * wrote before) is accepted; any other folder is refused by name.
 */
function refuseMovedSkills(doc: unknown, rel: string): void {
  const skills = (doc as {skills?: unknown} | null)?.skills
  if (skills === undefined || (typeof skills === 'string' && ['skills', 'skills/', './skills', './skills/'].includes(skills))) return
  throw new ExpError('E_SCHEMA', `${rel}: skills is ${JSON.stringify(skills)}, but exp reads skills only from skills/ at the top of the repository (the gate, proposals, blame and provenance name skills/NAME/ paths)`, {data: {file: rel, field: 'skills', value: skills}, hint: `move the skills back (\`git mv ${typeof skills === 'string' && /^[\w./-]+$/.test(skills) ? skills : 'FOLDER'} skills\`) and remove skills from ${rel}`})
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
