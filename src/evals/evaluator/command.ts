import {existsSync, statSync} from 'node:fs'
import {readFile, rm} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {createHash} from 'node:crypto'
import type {ObservationBody, VerdictBody} from '../../records/types.js'
import {splitCommandLine} from '../../agents/command/argv.js'
import type {Contract, EvalSpec} from '../../contracts/types.js'
import {gain} from '../../contracts/types.js'
import type {Redact} from '../../redact/index.js'
import {ExpError} from '../../errors/index.js'
import type {EvaluatorIdentity} from './port.js'
import {runProcess, type ProcessRun} from './process.js'

/**
 * The second adapter of the Evaluator port: a research contract's command. It runs in a
 * fresh checkout of the attempt, with the contract's evaluator-only data in
 * EXP_PRIVATE_DIR, and only the metrics file it writes is the authority; stdout and stderr
 * are diagnostics. Not deterministic (timing, the machine): its evidence is re-derived by
 * recomputing the verdict from the observation, not by replay.
 */
export interface CommandRunInput {
  spec: EvalSpec
  /** the checkout to run in (the command's working folder) */
  checkout: string
  /** where the evaluator-only data was unsealed, if the contract has any */
  privateDir?: string
  seed: number
  repetition: number
  /** a resumed run may get more time (the contract's resume policy) */
  timeoutSeconds?: number
  redact: Redact
  env?: NodeJS.ProcessEnv
}

export type CommandResult = Pick<ObservationBody, 'ran' | 'exit_code' | 'signal' | 'timed_out' | 'duration_ms' | 'metrics' | 'metrics_error' | 'artifacts' | 'missing_artifacts' | 'stdout' | 'stderr'>

export function commandEvaluatorIdentity(contract: Contract, harness: string): EvaluatorIdentity {
  return {id: `command:${contract.name}`, version: contract.source.digest.slice(7, 19), digest: `sha256:${createHash('sha256').update(`${contract.source.digest}\0${harness}`).digest('hex')}`}
}

/** Metrics as JSON; bare NaN and Infinity (what Python's json writes) are read as non-finite values. */
export function parseMetrics(text: string): {metrics?: Record<string, unknown>; error?: string} {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    try {
      doc = JSON.parse(text.replace(/(?<=[:[,]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, '"$1"'))
    } catch (e) {
      return {error: `not JSON: ${(e as Error).message}`}
    }
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return {error: 'not a JSON object of metrics'}
  return {metrics: doc as Record<string, unknown>}
}

function digestFile(file: string): Promise<string> {
  return readFile(file).then(b => `sha256:${createHash('sha256').update(b).digest('hex')}`)
}

/** Run the contract's command once in the checkout and read what it wrote. */
export async function runCommandEvaluator(o: CommandRunInput): Promise<CommandResult> {
  const words = splitCommandLine(o.spec.command ?? '')
  if (!words?.length) throw new ExpError('E_SCHEMA', `the evaluator command "${o.spec.command}" cannot be split into words`, {hint: 'quote it like a shell would (docs/contracts.md)'})
  const metricsPath = path.join(o.checkout, o.spec.metrics_file)
  // a metrics file that was there before the command ran is not the command's word
  await rm(metricsPath, {force: true})
  const home = path.join(os.tmpdir(), `exp-eval-home-${process.pid}`)
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    ...o.env,
    EXP_SEED: String(o.seed),
    EXP_REPETITION: String(o.repetition),
    ...(o.privateDir ? {EXP_PRIVATE_DIR: o.privateDir} : {}),
  }
  const [program, ...args] = words as [string, ...string[]]
  const run: ProcessRun = await runProcess(program, args, {cwd: o.checkout, env, timeoutMs: (o.timeoutSeconds ?? o.spec.timeout_seconds) * 1000})
  const out: CommandResult = {ran: true, exit_code: run.exit_code, signal: run.signal, timed_out: run.timed_out, duration_ms: run.duration_ms, stdout: o.redact(run.stdout), stderr: o.redact(run.spawn_error ? `cannot start ${program}: ${run.spawn_error}\n${run.stderr}` : run.stderr), artifacts: [], missing_artifacts: []}
  if (run.spawn_error) out.exit_code = 127
  if (!run.timed_out && existsSync(metricsPath) && statSync(metricsPath).isFile()) {
    const m = parseMetrics(await readFile(metricsPath, 'utf8'))
    if (m.metrics) out.metrics = m.metrics
    else out.metrics_error = m.error
  }
  for (const a of o.spec.required_artifacts) {
    const f = path.join(o.checkout, a)
    if (existsSync(f) && statSync(f).isFile()) out.artifacts!.push({path: a, size: statSync(f).size, digest: await digestFile(f)})
    else out.missing_artifacts!.push(a)
  }
  return out
}

export type Judged = Pick<VerdictBody, 'valid' | 'outcome' | 'metric' | 'verified_metrics' | 'violations' | 'needs_retry'> & {baseline?: VerdictBody['baseline']}

/**
 * The contract's validity rules applied to one observation (pure): a run that did not give
 * a trustworthy number is needs_retry with a stop reason; a valid run is positive, neutral
 * or negative against the baseline's value of the same repetition, beyond the margin.
 */
export function judgeObservation(obs: Pick<ObservationBody, 'ran' | 'exit_code' | 'signal' | 'timed_out' | 'metrics' | 'metrics_error' | 'missing_artifacts' | 'boundary' | 'timeout_seconds' | 'retry'>, contract: Contract, baseline?: {value: number; verdict?: string}): Judged {
  if (!obs.boundary.clean) return {valid: false, outcome: 'invalid', violations: [...(obs.boundary.protected ?? []).map(p => `protected path changed: ${p}`), ...(obs.boundary.outside ?? []).map(p => `outside the editable scope: ${p}`), ...(obs.boundary.links ?? []).map(p => `not a regular file (a symbolic link or submodule): ${p}`)]}
  const retries = contract.resume.max_retries - (obs.retry ?? 0)
  const retry = (stop_reason: NonNullable<Judged['needs_retry']>['stop_reason'], why: string): Judged => ({
    valid: false,
    outcome: 'invalid',
    violations: [why],
    needs_retry: {stop_reason, resume: retries > 0 ? (stop_reason === 'timeout' ? {action: 'retry_longer', timeout_seconds: (obs.timeout_seconds ?? 0) * contract.resume.timeout_multiplier, retries_left: retries} : {action: 'retry', retries_left: retries}) : {action: 'abandon', retries_left: 0}},
  })
  if (!obs.ran) return {valid: false, outcome: 'invalid', violations: ['the evaluator did not run']}
  if (obs.timed_out) return retry('timeout', `the evaluator ran past its timeout of ${obs.timeout_seconds} s and was killed`)
  if (obs.exit_code === 127 && !obs.metrics) return retry('spawn', 'the evaluator command could not be started')
  if (obs.exit_code !== 0) return retry('crash', obs.signal ? `the evaluator was killed by ${obs.signal}` : `the evaluator exited with code ${obs.exit_code}`)
  if (obs.metrics_error) return retry('unparseable_metrics', `the metrics file is unreadable: ${obs.metrics_error}`)
  if (!obs.metrics) return retry('missing_metrics', 'the evaluator wrote no metrics file')
  if (obs.missing_artifacts?.length) return retry('missing_artifacts', `required artifacts missing: ${obs.missing_artifacts.join(', ')}`)
  const raw = obs.metrics[contract.metric.name]
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^(-?Infinity|NaN)$/.test(raw) ? Number(raw) : undefined
  if (value === undefined) return retry('missing_metrics', `the metrics file has no number "${contract.metric.name}"`)
  if (contract.validity.finite_metrics && !Number.isFinite(value)) return retry('non_finite_metric', `"${contract.metric.name}" is ${value}, not a finite number`)
  const missing = contract.validity.required_metrics.filter(k => !(k in obs.metrics!))
  if (missing.length) return retry('missing_metrics', `the metrics file lacks ${missing.join(', ')}`)
  const metric = {name: contract.metric.name, value, direction: contract.metric.direction}
  const verified = Object.fromEntries(Object.entries(obs.metrics).filter(([, v]) => typeof v === 'number' && Number.isFinite(v)))
  if (!baseline) return {valid: true, outcome: 'neutral', metric, verified_metrics: verified, violations: []}
  const g = gain(contract, value, baseline.value)
  const outcome = g > contract.metric.margin ? 'positive' : g < -contract.metric.margin ? 'negative' : 'neutral'
  return {valid: true, outcome, metric, verified_metrics: verified, violations: [], baseline: {value: baseline.value, ...(baseline.verdict ? {verdict: baseline.verdict} : {}), gain: Math.round(g * 1e9) / 1e9}}
}
