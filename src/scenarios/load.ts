import {lstat, readdir} from 'node:fs/promises'
import path from 'node:path'
import {checkScenarioSchema} from './schema.js'
import {decodeUtf8} from '../records/index.js'
import type {ExpError} from '../errors/index.js'
import type {Problem, Scenario} from './types.js'
import {lineOf, parseLocated, type LocatedYaml} from './yaml.js'
import {loadSealedDir, sealedSummary} from './sealed-load.js'
import {readWorkFile} from '../work-file.js'
import {findSecret, secretScanner} from '../redact/secrets.js'

/** One parsed file: the scenario when it is schema-valid, its problems with lines otherwise. */
export interface LoadedFile {
  file: string
  yaml?: LocatedYaml
  scenario?: Scenario
  problems: Problem[]
}

/**
 * Parsed scenarios by their text: a process that loads the same scenarios again (the
 * baseline and the candidate of one promotion, the trust checks' replay) parses each
 * once, and every run shares one Scenario object (and its cached initial world state).
 */
const parsed = new Map<string, LoadedFile>()

export function parseScenario(text: string, file: string): LoadedFile {
  const hit = parsed.get(text)
  if (hit && !hit.problems.length) return {...hit, file}
  const loaded = parseText(text, file)
  if (!loaded.problems.length && parsed.size < 10_000) parsed.set(text, loaded)
  return loaded
}

function parseText(text: string, file: string): LoadedFile {
  const yaml = parseLocated(text)
  if (yaml.errors.length) return {file, yaml, problems: yaml.errors.map(e => ({file, line: e.line, column: e.column, message: `YAML: ${e.message}`}))}
  const issues = checkScenarioSchema(yaml.data)
  if (issues.length) return {file, yaml, problems: issues.map(i => ({file, line: lineOf(yaml, i.path), message: i.message}))}
  // a credential in a scenario reaches the records of every run of it (a trace keeps its
  // task), which the store refuses: a run stopped at that scenario, naming no file. Now it is
  // the file's problem, reported by lint and skipped by a run like any file that does not load
  const leak = findSecret(yaml.data, secretScanner())
  if (leak) {
    const at = leak.path.split(/\.|\[(\d+)\]/).filter(Boolean)
    return {file, yaml, problems: [{file, line: lineOf(yaml, at), message: `${leak.path} holds ${leak.what}: the records of every run copy a scenario's text to each clone that syncs; write a placeholder (e.g. [redacted]) in its place`}]}
  }
  const scenario = yaml.data as Scenario
  scenario.constraints ??= []
  return {file, yaml, scenario, problems: []}
}

export async function loadScenarioFile(file: string): Promise<LoadedFile> {
  // a run pins its scenarios by the folder's git tree id, which holds a link, not what it points
  // to: a scenario read through one could change after the run with the id still the same (the
  // miner once replayed runs against the changed file and learned its verdicts)
  if ((await lstat(file).catch(() => undefined))?.isSymbolicLink()) return {file, problems: [{file, line: 1, message: 'is a symbolic link: a run pins its scenarios by their folder\'s git tree id, which holds the link, not the file it points to; put the file itself in the folder'}]}
  let text: string
  try {
    text = decodeUtf8(await readWorkFile(file), file)
  } catch (e) {
    // one unreadable file is that file's problem: the others still load
    const d = (e as ExpError).data as {line?: number; col?: number; reason?: string} | undefined
    return {file, problems: [{file, line: d?.line ?? 1, column: d?.col, message: d?.reason ?? (e as Error).message.replace(/^.*?: /, '')}]}
  }
  return parseScenario(text, file)
}

/** The scenario files of a folder (*.yaml, *.yml), sorted by name. */
export async function scenarioFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir)
  return names.filter(n => /\.ya?ml$/.test(n)).sort().map(n => path.join(dir, n))
}

/** A folder's scenario files, each scenario under the id its file is named by and no other's (`checkIds`). */
export async function loadScenarioDir(dir: string): Promise<LoadedFile[]> {
  return checkIds(await Promise.all((await scenarioFiles(dir)).map(loadScenarioFile)))
}

/**
 * Every loaded scenario whose id is not its file's name, or is the id of a scenario before it
 * (`x.yaml` and `x.yml`, a sealed file and a plain one): its file loses the scenario and gains
 * the problem, which names the other file (the problems `exp scenarios lint` reports), so it is
 * skipped like any file that does not load. Two scenarios of one id made a run record every
 * trace and then fail on its evaluation (a verification cited twice), and every rerun too.
 * Files that lost their scenario already are left as they are: checking twice adds nothing.
 */
export function checkIds(files: readonly LoadedFile[]): LoadedFile[] {
  const stem = (f: LoadedFile) => path.basename(f.file.split('#').pop()!).replace(/\.ya?ml$/, '')
  const named = new Map<string, string>()
  const problem = (f: LoadedFile, message: string): Problem => ({file: f.file, line: f.yaml ? lineOf(f.yaml, ['id']) : 1, message})
  const extra = new Map<LoadedFile, Problem[]>()
  // first the files named by their id (the first of each id stands), then those that are not
  for (const f of files) {
    if (!f.scenario || f.scenario.id !== stem(f)) continue
    const other = named.get(f.scenario.id)
    if (other) extra.set(f, [problem(f, `id "${f.scenario.id}" is already used by ${other}`)])
    else named.set(f.scenario.id, f.file)
  }
  for (const f of files) {
    if (!f.scenario || f.scenario.id === stem(f)) continue
    const other = named.get(f.scenario.id)
    extra.set(f, [problem(f, `id "${f.scenario.id}" does not match the file name "${stem(f)}"`), ...(other ? [problem(f, `id "${f.scenario.id}" is already used by ${other}`)] : [])])
  }
  if (!extra.size) return [...files]
  return files.map(f => {
    const more = extra.get(f)
    if (!more) return f
    const {scenario: _skipped, ...rest} = f
    return {...rest, problems: [...f.problems, ...more]}
  })
}

/**
 * A folder's scenario files and, when it has a sealed held-out file and the key is given,
 * the scenarios sealed in it. Without the key the sealed file is only counted.
 */
export async function loadWithSealed(dir: string, key?: Buffer): Promise<{loaded: LoadedFile[]; sealed?: {files: number; opened: boolean}}> {
  const loaded = await loadScenarioDir(dir)
  const summary = await sealedSummary(dir)
  if (!summary) return {loaded}
  if (!key) return {loaded, sealed: {files: summary.files, opened: false}}
  return {loaded: checkIds([...loaded, ...(await loadSealedDir(dir, key))]), sealed: {files: summary.files, opened: true}}
}
