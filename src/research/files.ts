import path from 'node:path'
import {assertResearchFile, parseYamlOrJson, digestOf} from '../records/index.js'
import type {ResearchConfig, ResearchContract, PromotionPolicy} from '../records/types.js'
import {realpathSync} from 'node:fs'
import {ExpError, NotFoundError, SchemaError, isExpError} from '../errors/index.js'
import {within} from '../paths.js'
import {linkOnTheWay, readWorkFile} from '../work-file.js'
import {branchNameProblem} from './main-branch.js'

export const RESEARCH_DIR = '.research'

async function load<T>(workDir: string, name: 'config' | 'contract' | 'policy'): Promise<T | undefined> {
  const file = path.join(workDir, RESEARCH_DIR, `${name}.yaml`)
  const rel = path.join(RESEARCH_DIR, `${name}.yaml`)
  refuseLinkOut(workDir, file, rel)
  let text: string
  try {
    text = (await readWorkFile(file)).toString('utf8')
  } catch (e) {
    if (isExpError(e)) throw e // a device, a FIFO or a huge file: named, not taken for a missing file
    return undefined
  }
  // ("(root) must be object" said what the schema wants, not what is wrong)
  if (!text.trim()) throw new ExpError('E_SCHEMA', `${rel} is empty`, {data: {file: rel}, hint: name === 'config' ? `write at least \`version: 1\` into it, or remove it and run \`exp init\` to write the commented defaults` : `remove it and run \`exp init\` to write the commented defaults, or write the file (docs/contracts.md)`})
  const doc = await parseYamlOrJson(text, rel)
  if (name === 'config') {
    refuseEndpoint(doc, rel)
    refuseLane(doc, rel)
    refuseMovedSkills(doc, rel)
    refuseNonBranch(doc, rel)
  }
  try {
    assertResearchFile(name, doc, rel)
  } catch (e) {
    if (e instanceof SchemaError) throw await withLine(e, text, rel)
    throw e
  }
  return doc as T
}

/**
 * A `.research/` file that is a symbolic link (or under one) to a file outside the work tree is
 * refused by name: a repository can commit `.research/config.yaml -> /etc/passwd` (or a file
 * of yours under ~), and exp would read, parse and quote it. A link within the work tree reads.
 */
function refuseLinkOut(workDir: string, file: string, rel: string): void {
  const link = linkOnTheWay(workDir, file, true)
  if (!link) return
  let real: string
  try {
    real = realpathSync(file)
  } catch {
    real = path.resolve(path.dirname(link.at), link.to) // a link to nothing: where it points
  }
  let top = workDir
  try {
    top = realpathSync(workDir)
  } catch {
    // as given
  }
  if (within(real, top)) return
  const at = path.relative(workDir, link.at)
  throw new ExpError('E_INVALID_INPUT', `${at === rel ? rel : `${rel}: ${at}`} is a symbolic link to ${link.to}, outside the work tree: exp reads only files of the work tree`, {data: {file: rel, link: at, to: link.to}, hint: `replace ${at} with a regular file (\`git rm ${at}\` if it is committed; \`exp init\` writes the commented defaults)`})
}

/** The schema error again, naming the line of the first field it names (where the field is, or the nearest part of its path that is). */
async function withLine(e: SchemaError, text: string, rel: string): Promise<SchemaError> {
  const {parseDocument, LineCounter} = await import('../vendor/yaml.js')
  const lc = new LineCounter()
  const doc = parseDocument(text, {lineCounter: lc, prettyErrors: false})
  const lineOf = (dotted: string): number | undefined => {
    const parts = dotted ? dotted.split('.').map(p => (/^\d+$/.test(p) ? Number(p) : p)) : []
    for (let n = parts.length; n >= 0; n--) {
      const node = (n === 0 ? doc.contents : doc.getIn(parts.slice(0, n), true)) as {range?: [number, number, number]} | null | undefined
      if (node?.range) return lc.linePos(node.range[0]).line
    }
    return undefined
  }
  const problems = e.problems.map(p => ({...p, line: lineOf(p.path)}))
  // the problem the message names first (src/errors/index.ts: a field that is not allowed first)
  const first = problems.find(p => p.message === 'is not an allowed field') ?? problems[0]
  const line = first?.line
  const err = new SchemaError(line ? `${rel}:${line}` : rel, problems)
  Object.assign(err.data, {file: rel, ...(line ? {line} : {})})
  return err
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

/**
 * main_branch names the branch promotions merge into, and nothing else: a committed
 * `main_branch: refs/tags/v1.0` (a clone or a pull request sets the file) had `exp evolve`
 * promote by moving the release tag, and `refs/research/lanes/x` land its merges on a lane.
 */
function refuseNonBranch(doc: unknown, rel: string): void {
  const main = (doc as {main_branch?: unknown} | null)?.main_branch
  if (typeof main !== 'string') return // (not a string: the schema says so)
  const why = branchNameProblem(main)
  if (!why) return
  const short = main.startsWith('refs/heads/') ? main.slice('refs/heads/'.length) : undefined
  throw new ExpError('E_SCHEMA', `${rel}: main_branch ${JSON.stringify(main)} is not a branch name: ${why}`, {data: {file: rel, field: 'main_branch', value: main}, hint: short && !branchNameProblem(short) ? `write the branch's name: main_branch: ${short}` : `set main_branch in ${rel} to the branch promotions merge into, by its name (e.g. main_branch: main); remove the field to use the default branch`})
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
