import {statSync} from 'node:fs'
import path from 'node:path'
import {Flags} from '../vendor/oclif.js'
import {loadConfig} from '../research/files.js'
import {discoverRepo, type GitRecordStore} from '../store/index.js'
import type {EvalRunOptions} from '../loop/evaluate.js'
import {createAgent, type AgentOptions} from '../agents/registry.js'
import {passedSecrets} from '../agents/command/sandbox.js'
import {ExpError, NotFoundError, isExpError} from '../errors/index.js'
import type {ResearchConfig} from '../records/types.js'
import {laneOf} from './context.js'
import {mainRefOf} from './main-ref.js'
import {outputPath} from './out-path.js'
import {openEventSink} from '../events/index.js'
import {defaultKeyFile, findHoldoutKey} from '../scenarios/key.js'
import {PACKAGE_ROOT} from '../package-root.js'
import {DEFAULT_EXPLORE_RATE} from '../evals/runner/explore.js'
import {signedReuse} from '../trust/reuse.js'
import {GitWorkspace} from '../workspace/git.js'
import {workTreesOf} from '../git/worktrees.js'

export const holdoutKeyFile = defaultKeyFile

/** Flags shared by the commands that run episodes (run, eval, promote, evolve, gate). */
export const runFlags = {
  agent: Flags.string({description: 'scripted | command:PROGRAM | openai:MODEL; scripted:noise=P or noise:P:SPEC adds seeded slips (default: config agent, else scripted)'}),
  scenarios: Flags.string({description: 'folder of scenario files (default: config scenarios, else scenarios/)'}),
  seed: Flags.integer({description: 'base seed (default: config seed, else 42)', min: 0}),
  concurrency: Flags.integer({description: 'episodes in flight at once', min: 1}),
  lane: Flags.string({description: 'lane to record on (default: EXP_LANE, git config exp.lane, user@host)'}),
  'max-steps': Flags.integer({description: 'tool calls allowed per episode', min: 1}),
  events: Flags.string({description: 'append lifecycle events as JSON Lines to this file (default: EXP_EVENTS); secrets, home paths and held-out scenario ids are redacted'}),
}

/** `--explore RATE` of the commands whose loops train (evolve, and the evolving arms of compare and gain). */
export const exploreFlag = Flags.string({
  description: `training only: the probability that each rule line of the skill is left out of one training run, so that runs show what the agent does without it and a rule learned too early can be replaced (docs/loop.md, "Exploration"); 0 turns it off`,
  default: String(DEFAULT_EXPLORE_RATE),
})

export interface RunFlagValues {
  agent?: string
  scenarios?: string
  seed?: number
  concurrency?: number
  lane?: string
  'max-steps'?: number
  events?: string
}

/**
 * The key files every sandbox hides (they may be outside the repository): the one
 * EXP_HOLDOUT_KEY_FILE names, and the private key exp signs evidence with.
 */
export function keyFileHidden(store: GitRecordStore): string[] {
  const keyFile = process.env.EXP_HOLDOUT_KEY_FILE?.trim()
  const signing = store.signingKeyFile()
  return [...(keyFile ? [path.resolve(keyFile)] : []), ...(signing ? [path.resolve(signing)] : [])]
}

/**
 * What no agent and no evaluator command may see of the repository (one list, for every
 * sandbox exp builds): every work tree of it — the one exp runs in and the others `git
 * worktree list` names, each a checkout with the scenarios' gold answers and the harness —
 * its git dirs (the key file, the lanes, the cache) and the key files elsewhere. (Before, a run
 * from a linked work tree let its agent read the main work tree's scenarios, and the other way
 * round.)
 */
export function repositoryHidden(store: GitRecordStore): string[] {
  return [...new Set([...workTreesOf(store.repo), store.repo.commonDir, store.repo.gitDir, ...keyFileHidden(store)])]
}

/**
 * The options agents are made with: `scenariosDir`, the folder a run reads its scenarios from,
 * is hidden from a `command:` agent too (a `--scenarios DIR` outside the repository).
 */
export function agentOptions(cfg: ResearchConfig, store: GitRecordStore, scenariosDir?: string): AgentOptions {
  // what a command agent must never see: this repository (every work tree of it), its git folders, a key file elsewhere, the scenarios in use, the package's own scenarios
  const hide = [...new Set([...repositoryHidden(store), ...(scenariosDir ? [path.resolve(scenariosDir)] : []), path.join(PACKAGE_ROOT, 'scenarios')])]
  return {
    command: {...(cfg.run?.timeout_ms ? {timeoutMs: cfg.run.timeout_ms} : {}), sandbox: {...(store.repo.workDir ? {root: store.repo.workDir} : {}), hide}},
    // (the endpoint and key are the user's environment's: OPENAI_BASE_URL, OPENAI_API_KEY)
    openai: {
      cacheDir: path.join(store.commonDir, 'exp', 'llm-cache'),
      ...(cfg.openai?.timeout_ms ? {timeoutMs: cfg.openai.timeout_ms} : {}),
      ...(cfg.openai?.max_retries !== undefined ? {maxRetries: cfg.openai.max_retries} : {}),
    },
  }
}

/** Everything a run needs, from flags over .research/config.yaml over defaults. */
export async function runContext(store: GitRecordStore, cwd: string, flags: RunFlagValues, warn?: (line: string) => void): Promise<{options: EvalRunOptions; config: ResearchConfig; root: string; mainRef: string}> {
  const root = store.repo.workDir ?? cwd
  const cfg = await loadConfig(root)
  const agent = flags.agent ?? cfg.agent ?? 'scripted'
  const scenariosDir = scenariosDirOf(root, cwd, cfg, flags.scenarios)
  const options: EvalRunOptions = {
    agent,
    scenariosDir,
    skillsDir: path.join(root, cfg.skills ?? 'skills'),
    seed: flags.seed ?? cfg.seed ?? 42,
    concurrency: flags.concurrency ?? cfg.run?.concurrency ?? 4,
    lane: await laneOf(store, flags.lane),
    cwd,
    repo: store.repo,
    maxSteps: flags['max-steps'] ?? cfg.run?.max_steps,
    agentOptions: agentOptions(cfg, store, scenariosDir),
    // written synchronously, a line per event: nothing to flush when the command ends
    // (what the agent is handed with --env is masked in the events too)
    events: openEventSink(eventsFile(cwd, flags.events), {cwd, secrets: passedSecrets(agent)}),
  }
  // a wrong --agent or --scenarios fails here, before a command records anything (evolve's start
  // note, an attempt, a compare lane): creating an agent only checks its spec
  try {
    createAgent(options.agent, options.agentOptions)
  } catch (e) {
    // an agent of the config is the file's mistake: said with its name and field
    if (flags.agent === undefined && cfg.agent !== undefined && isExpError(e)) throw new ExpError(e.code, `.research/config.yaml: agent: ${e.message}`, {data: {...e.data, file: '.research/config.yaml', field: 'agent'}, hint: `${e.hint ? `${e.hint}; ` : ''}fix agent in .research/config.yaml, or pass --agent`, exit: e.exit})
    throw e
  }
  const key = await findHoldoutKey({env: process.env, defaultFile: holdoutKeyFile(store.commonDir)})
  if (key) options.holdoutKey = key
  const mainRef = await mainRefOf(store.repo, cwd, undefined, warn)
  // what a run may reuse is the policy's to say: with signed evidence, only what a trusted identity stands behind (src/trust/reuse.ts)
  options.reuse = {vouch: signedReuse(new GitWorkspace(store), mainRef)}
  return {options, config: cfg, root, mainRef}
}

/** The scenarios folder of a command: --scenarios (relative to the current folder; it must be a folder), else the config's, else scenarios/ of the work tree. */
export function scenariosDirOf(root: string, cwd: string, cfg: ResearchConfig, flag: string | undefined): string {
  const dir = path.resolve(cwd, flag ?? path.join(root, cfg.scenarios ?? 'scenarios'))
  if (flag !== undefined && !isFolder(dir)) throw new NotFoundError('scenarios folder', flag, 'pass the folder of scenario files with --scenarios (relative to the current folder)')
  return dir
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

/** --events FILE, or EXP_EVENTS: checked like every output path (src/cli/out-path.ts). */
function eventsFile(cwd: string, flag: string | undefined): string | undefined {
  // (an empty --events is refused by outputPath; an empty EXP_EVENTS is no variable, as a shell has it)
  if (flag !== undefined) return outputPath(cwd, flag, '--events', 'file')
  return process.env.EXP_EVENTS ? outputPath(cwd, process.env.EXP_EVENTS, 'EXP_EVENTS', 'file') : undefined
}

/** The held-out key for a folder's repository (EXP_HOLDOUT_KEY, EXP_HOLDOUT_KEY_FILE, .git/exp/holdout.key), if any. */
export async function holdoutKeyFor(dir: string): Promise<Buffer | undefined> {
  let commonDir: string | undefined
  try {
    commonDir = discoverRepo(dir).commonDir
  } catch {
    commonDir = undefined
  }
  return (await findHoldoutKey({env: process.env, ...(commonDir ? {defaultFile: defaultKeyFile(commonDir)} : {})}))?.key
}
