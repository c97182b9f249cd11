import {existsSync} from 'node:fs'
import {readdir} from 'node:fs/promises'
import path from 'node:path'
import {digestOf, gitBlobId} from '../records/digest.js'
import {problemsOf, validator} from '../records/validate.js'
import {lineOf, parseLocated} from '../scenarios/yaml.js'
import type {Problem} from '../scenarios/types.js'
import {ExpError, NotFoundError} from '../errors/index.js'
import type {Workspace} from '../workspace/port.js'
import {readWorkFile} from '../work-file.js'
import type {Contract, ContractDoc, EvalSpec} from './types.js'
import {semanticProblems} from './rules.js'
import {clipped} from '../errors/shown.js'

export const CONTRACTS_DIR = '.research/contracts'

export interface ParsedContract {
  file: string
  contract?: Contract
  problems: Problem[]
}

function evalSpec(e: ContractDoc['dev_eval'], fallback: string): EvalSpec {
  const evaluator = e.evaluator ?? (e.command ? 'command' : 'world')
  return {
    evaluator,
    ...(e.split ? {split: e.split} : {}),
    ...(e.command ? {command: e.command} : {}),
    label: e.label ?? e.command ?? `${evaluator} ${e.split ?? fallback}`,
    timeout_seconds: e.timeout_seconds ?? 600,
    repetitions: e.repetitions ?? 1,
    required_artifacts: e.required_artifacts ?? [],
    metrics_file: e.metrics_file ?? 'metrics.json',
  }
}

/** The contract with every default applied. */
export function normalize(doc: ContractDoc, source: {path: string; blob?: string}): Contract {
  return {
    name: doc.name,
    objective: doc.objective,
    editable_scope: [...doc.editable_scope],
    protected_scope: [...doc.protected_scope],
    metric: {name: doc.metric.name, direction: doc.metric.direction, margin: doc.metric.margin ?? 0},
    dev_eval: evalSpec(doc.dev_eval, 'validation'),
    holdout_eval: evalSpec(doc.holdout_eval, 'holdout'),
    validity: {finite_metrics: doc.validity?.finite_metrics ?? true, max_failed_repetitions: doc.validity?.max_failed_repetitions ?? 0, required_metrics: doc.validity?.required_metrics ?? []},
    private_data: doc.private_data ?? [],
    baseline: {...doc.baseline},
    budget: {max_attempts: doc.budget?.max_attempts ?? 20, max_parallel_lanes: doc.budget?.max_parallel_lanes ?? 2, ...(doc.budget?.max_wall_seconds ? {max_wall_seconds: doc.budget.max_wall_seconds} : {}), ...(doc.budget?.max_episodes ? {max_episodes: doc.budget.max_episodes} : {})},
    promotion: {holdout_required: doc.promotion?.holdout_required ?? true, paired_alpha: doc.promotion?.paired_alpha ?? 0.1, ...(doc.promotion?.policy ? {policy: doc.promotion.policy} : {})},
    resume: {max_retries: doc.resume?.max_retries ?? 1, timeout_multiplier: doc.resume?.timeout_multiplier ?? 2},
    source: {path: source.path, digest: digestOf(doc), ...(source.blob ? {blob: source.blob} : {})},
  }
}

/** Parse one contract text: YAML with positions, the schema, then the rules a schema cannot say; every problem with its line. */
export function parseContract(text: string, file: string, blob?: string): ParsedContract {
  const y = parseLocated(text)
  if (y.errors.length) return {file, problems: y.errors.map(e => ({file, line: e.line, column: e.column, message: `YAML: ${e.message}`}))}
  const v = validator('research/contract2.schema.json')
  if (!v(y.data)) return {file, problems: problemsOf(v.errors).map(p => ({file, line: lineOf(y, p.path ? p.path.split('.') : []), message: `${p.path || '(root)'} ${p.message}`}))}
  const doc = y.data as ContractDoc
  const stem = path.basename(file).replace(/\.ya?ml$/, '')
  const problems: Problem[] = []
  if (doc.name !== stem) problems.push({file, line: lineOf(y, ['name']), message: `name "${doc.name}" does not match the file name "${stem}"`})
  for (const p of semanticProblems(doc)) problems.push({file, line: lineOf(y, p.path), message: p.message})
  return problems.length ? {file, problems} : {file, contract: normalize(doc, {path: file, ...(blob ? {blob} : {})}), problems: []}
}

/** The contract files of a work tree, sorted by name. */
export async function contractFiles(root: string): Promise<string[]> {
  const dir = path.join(root, CONTRACTS_DIR)
  if (!existsSync(dir)) return []
  return (await readdir(dir)).filter(n => /\.ya?ml$/.test(n)).sort().map(n => path.join(dir, n))
}

export async function loadContracts(root: string): Promise<ParsedContract[]> {
  return Promise.all((await contractFiles(root)).map(async f => parseContract((await readWorkFile(f)).toString('utf8'), path.relative(root, f))))
}

function invalid(p: ParsedContract): ExpError {
  const first = p.problems[0]!
  return new ExpError('E_SCHEMA', `${first.file}:${first.line}: ${first.message}${p.problems.length > 1 ? ` (+${p.problems.length - 1} more)` : ''}`, {hint: `run \`exp contract lint ${path.basename(p.file).replace(/\.ya?ml$/, '')}\` for all of them; docs/contracts.md describes the format`, data: {problems: p.problems}})
}

/** One contract of the work tree by name, or an error naming the file and line. */
export async function loadContract(root: string, name: string): Promise<Contract> {
  const file = [`${name}.yaml`, `${name}.yml`].map(n => path.join(root, CONTRACTS_DIR, n)).find(f => existsSync(f))
  if (!file) {
    const known = (await contractFiles(root)).map(f => path.basename(f).replace(/\.ya?ml$/, ''))
    throw new NotFoundError('contract', name, known.length ? `contracts here: ${known.join(', ')}` : `write ${CONTRACTS_DIR}/${clipped(name)}.yaml (docs/contracts.md), or run \`exp init --example tuning\``)
  }
  const p = parseContract((await readWorkFile(file)).toString('utf8'), path.relative(root, file))
  if (!p.contract) throw invalid(p)
  return p.contract
}

/** A contract as committed at a revision (what judges an attempt: the base's, never the attempt's own). */
export async function contractAt(ws: Workspace, commit: string, name: string): Promise<Contract> {
  for (const ext of ['yaml', 'yml']) {
    const rel = `${CONTRACTS_DIR}/${name}.${ext}`
    const bytes = await ws.readFile(commit, rel)
    if (!bytes) continue
    const p = parseContract(bytes.toString('utf8'), rel, gitBlobId(bytes))
    if (!p.contract) throw invalid(p)
    return p.contract
  }
  throw new NotFoundError('contract', `${commit.slice(0, 12)}:${CONTRACTS_DIR}/${name}.yaml`, 'commit the contract on the main branch first')
}

/** Every contract committed at a revision (the gate's scopes). */
export async function contractsAt(ws: Workspace, commit: string): Promise<Contract[]> {
  const files = await ws.listFiles(commit, CONTRACTS_DIR)
  const out: Contract[] = []
  for (const f of files.filter(x => /\.ya?ml$/.test(x.path))) {
    const p = parseContract(f.content.toString('utf8'), `${CONTRACTS_DIR}/${f.path}`, f.blob)
    if (!p.contract) throw invalid(p)
    out.push(p.contract)
  }
  return out
}
