import {readdir} from 'node:fs/promises'
import path from 'node:path'
import {checkScenarioSchema} from './schema.js'
import {decodeUtf8} from '../records/index.js'
import type {ExpError} from '../errors/index.js'
import type {Problem, Scenario} from './types.js'
import {lineOf, parseLocated, type LocatedYaml} from './yaml.js'
import {loadSealedDir, sealedSummary} from './sealed-load.js'
import {readWorkFile} from '../work-file.js'

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
  const scenario = yaml.data as Scenario
  scenario.constraints ??= []
  return {file, yaml, scenario, problems: []}
}

export async function loadScenarioFile(file: string): Promise<LoadedFile> {
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

export async function loadScenarioDir(dir: string): Promise<LoadedFile[]> {
  return Promise.all((await scenarioFiles(dir)).map(loadScenarioFile))
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
  return {loaded: [...loaded, ...(await loadSealedDir(dir, key))], sealed: {files: summary.files, opened: true}}
}
