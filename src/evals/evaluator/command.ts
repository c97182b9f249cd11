import {constants} from 'node:fs'
import {lstat, open, realpath, rm, type FileHandle} from 'node:fs/promises'
import path from 'node:path'
import {createHash} from 'node:crypto'
import type {ObservationBody, VerdictBody} from '../../records/types.js'
import {nestedDeeper} from '../../records/index.js'
import {duplicateKey} from '../../records/json-keys.js'
import {splitCommandLine} from '../../agents/command/argv.js'
import type {Contract, EvalSpec} from '../../contracts/types.js'
import {gain} from '../../contracts/types.js'
import {redactDeep, type Redact} from '../../redact/index.js'
import {ExpError, SandboxError} from '../../errors/index.js'
import type {EvaluatorIdentity} from './port.js'
import {runProcess, type ProcessRun} from './process.js'
import {evaluatorSandbox} from '../../agents/command/sandbox.js'

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
  /**
   * what the command must not see: the repository, its git dir (evaluatorSandbox, which also
   * hides the scratch folders); nothing is hidden when empty (the memory adapters' tests)
   */
  hide?: readonly string[]
  /**
   * With `privateDir`: the metrics the run records, the contract's metric and required
   * metrics, each only as a number (or the text of a non-finite one). The observation of a
   * held-out run is public, and the metrics file is the evaluator's to write: an attack sweep's
   * evaluator, subverted through a file of the attempt, wrote held-out rows into extra keys of
   * it. What else the file holds is not recorded.
   */
  keep?: readonly string[]
}

export type CommandResult = Pick<ObservationBody, 'ran' | 'exit_code' | 'signal' | 'timed_out' | 'duration_ms' | 'metrics' | 'metrics_error' | 'artifacts' | 'missing_artifacts' | 'stdout' | 'stderr'>

export function commandEvaluatorIdentity(contract: Contract, harness: string): EvaluatorIdentity {
  return {id: `command:${contract.name}`, version: contract.source.digest.slice(7, 19), digest: `sha256:${createHash('sha256').update(`${contract.source.digest}\0${harness}`).digest('hex')}`}
}

/** The most of a metrics file that is read: a metrics file is a handful of numbers, not a data set. */
export const METRICS_MAX_BYTES = 1024 * 1024

/** Metrics as JSON; bare NaN and Infinity (what Python's json writes) are read as non-finite values. */
function finiteOrText(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v)
  if (Array.isArray(v)) return v.map(finiteOrText)
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, {value: finiteOrText(x), enumerable: true, writable: true, configurable: true})
    return out
  }
  return v
}

/** The values of `keys` in `metrics` that are numbers, or the text of a non-finite one (finiteOrText). */
function numbersOf(metrics: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of keys) {
    const v = Object.hasOwn(metrics, k) ? metrics[k] : undefined
    if (typeof v === 'number' || v === 'Infinity' || v === '-Infinity' || v === 'NaN') Object.defineProperty(out, k, {value: v, enumerable: true, writable: true, configurable: true})
  }
  return out
}

/** The deepest nesting of objects and arrays a metrics file may have (what reads it recurses: 400,000 levels overflowed the stack). */
export const METRICS_MAX_DEPTH = 32

export function parseMetrics(text: string): {metrics?: Record<string, unknown>; error?: string} {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    try {
      doc = JSON.parse(text.replace(/(?<=[:[,]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, '"$1"'))
    } catch (e) {
      // the parser's message quotes the text around the error: the file's content is never repeated into a record
      const at = /position (\d+)/.exec((e as Error).message)?.[1]
      return {error: `not JSON${at ? ` (at character ${at})` : ''}`}
    }
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return {error: 'not a JSON object of metrics'}
  // a key twice: JSON.parse keeps the last, other readers the first or neither — and a value
  // written into the file unescaped could add one after the evaluator's own. Refused (its place
  // only: the key is the file's content, not repeated into a record)
  const dup = duplicateKey(text)
  if (dup) return {error: `a key appears twice in one object (at character ${dup.pos}): which value counts is not clear`}
  // (JSON.parse does not recurse; reading the values below does)
  if (nestedDeeper(doc, METRICS_MAX_DEPTH)) return {error: `nested deeper than ${METRICS_MAX_DEPTH} levels (a metrics file is a handful of numbers)`}
  // a literal beyond a number's range (`1e400`) parses to Infinity, which no record holds: kept
  // as the text "Infinity", as a literal Infinity is, and judged non-finite
  return {metrics: finiteOrText(doc) as Record<string, unknown>}
}

/**
 * A file the command left, taken only when it is a regular file inside its folder: not a
 * symbolic link (the command could point it at held-out data or a key), not under a linked
 * folder, not a FIFO or a device (a read could block). Opened without following links.
 */
async function openLeftFile(folder: string, rel: string): Promise<{fd?: FileHandle; size?: number; error?: string}> {
  const file = path.join(folder, rel)
  const st = await lstat(file).catch(() => undefined)
  if (!st) return {}
  if (st.isSymbolicLink()) return {error: `${rel} is a symbolic link (not followed)`}
  if (!st.isFile()) return {error: `${rel} is not a regular file`}
  if (!(await inside(folder, file))) return {error: `${rel} is outside the command's folder (through a symbolic link)`}
  const fd = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  const now = await fd.stat()
  if (!now.isFile() || now.ino !== st.ino) {
    await fd.close()
    return {error: `${rel} changed while it was read`}
  }
  return {fd, size: now.size}
}

async function inside(folder: string, file: string): Promise<boolean> {
  const [root, dir] = await Promise.all([realpath(folder), realpath(path.dirname(file)).catch(() => '')])
  return dir === root || dir.startsWith(root + path.sep)
}

/** The metrics file, at most METRICS_MAX_BYTES of it. */
async function readMetrics(folder: string, rel: string): Promise<{text?: string; error?: string}> {
  const f = await openLeftFile(folder, rel)
  if (!f.fd) return f.error ? {error: f.error} : {}
  try {
    if (f.size! > METRICS_MAX_BYTES) return {error: `${rel} is larger than ${METRICS_MAX_BYTES} bytes`}
    const buf = Buffer.alloc(f.size! + 1)
    const {bytesRead} = await f.fd.read(buf, 0, buf.length, 0)
    if (bytesRead > METRICS_MAX_BYTES) return {error: `${rel} is larger than ${METRICS_MAX_BYTES} bytes`}
    return {text: buf.subarray(0, bytesRead).toString('utf8')}
  } finally {
    await f.fd.close()
  }
}

/** An artifact's size and digest, streamed (a model or an index may be large). */
async function digestArtifact(folder: string, rel: string): Promise<{size: number; digest: string} | undefined> {
  const f = await openLeftFile(folder, rel)
  if (!f.fd) return undefined
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of f.fd.createReadStream()) {
    hash.update(chunk as Buffer)
    size += (chunk as Buffer).length
  }
  return {size, digest: `sha256:${hash.digest('hex')}`}
}

let warned = false

/** Once per process: the command, and the attempt's code it runs, can reach the repository (docs/trust.md, limits). */
function warnUnisolated(): void {
  if (warned) return
  warned = true
  process.stderr.write("warning: evaluator commands are not isolated on this machine (neither unshare nor bwrap can make a mount namespace): the attempt's code an evaluator runs could read the key file and write the repository; dev runs still get no evaluator-only data (docs/trust.md)\n")
}

/** Run the contract's command once in the checkout and read what it wrote. */
export async function runCommandEvaluator(o: CommandRunInput): Promise<CommandResult> {
  const words = splitCommandLine(o.spec.command ?? '')
  if (!words?.length) throw new ExpError('E_SCHEMA', `the evaluator command "${o.spec.command}" cannot be split into words`, {hint: 'quote it like a shell would (docs/contracts.md)'})
  const metricsPath = path.join(o.checkout, o.spec.metrics_file)
  // a metrics file that was there before the command ran is not the command's word (removed
  // only inside the checkout, never through a linked folder)
  // (a folder there too — an attempt may commit one where the file goes: rm of it threw, and
  // every rerun of the attempt failed the same way)
  if (await inside(o.checkout, metricsPath)) await rm(metricsPath, {force: true, recursive: true})
  // so is an artifact the command must write: one already in the checkout (committed by the
  // attempt) was counted as written by the evaluator
  for (const a of o.spec.required_artifacts) {
    const at = path.join(o.checkout, a)
    if (await inside(o.checkout, at)) await rm(at, {force: true, recursive: true})
  }
  const [program, ...args] = words as [string, ...string[]]
  const box = await evaluatorSandbox(program, args, {
    checkout: o.checkout,
    ...(o.privateDir ? {privateDir: o.privateDir} : {}),
    hide: o.hide ?? [],
    env: {PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...o.env, EXP_SEED: String(o.seed), EXP_REPETITION: String(o.repetition), ...(o.privateDir ? {EXP_PRIVATE_DIR: o.privateDir} : {})},
  })
  let run: ProcessRun
  try {
    run = await runProcess(box.program, box.args, {cwd: o.checkout, env: box.env, timeoutMs: (o.timeoutSeconds ?? o.spec.timeout_seconds) * 1000})
  } finally {
    await box.cleanup()
  }
  if (o.hide?.length && box.isolation === 'none') warnUnisolated()
  // the sandbox's own failure (exit 97) is not the command's
  if (box.isolation !== 'none' && run.exit_code === 97 && /^exp sandbox: /m.test(run.stderr)) throw new SandboxError(`the evaluator command could not be isolated: ${run.stderr.trim().split('\n').pop()}`, 'exp hides the repository from the evaluator with mount namespaces (unshare) or bwrap: check that they work here (docs/contracts.md)')
  const out: CommandResult = {ran: true, exit_code: run.exit_code, signal: run.signal, timed_out: run.timed_out, duration_ms: run.duration_ms, stdout: o.redact(run.stdout), stderr: o.redact(run.spawn_error ? `cannot start ${program}: ${run.spawn_error}\n${run.stderr}` : run.stderr), artifacts: [], missing_artifacts: []}
  if (run.spawn_error) out.exit_code = 127
  if (!run.timed_out) {
    const f = await readMetrics(o.checkout, o.spec.metrics_file)
    const m = f.text !== undefined ? parseMetrics(f.text) : {error: f.error}
    // the metrics are recorded on the public lane: a string in them is redacted like any output
    if (m.metrics) out.metrics = redactDeep(o.privateDir ? numbersOf(m.metrics, o.keep ?? []) : m.metrics, o.redact)
    else if (m.error) out.metrics_error = o.redact(m.error)
  }
  for (const a of o.spec.required_artifacts) {
    const d = await digestArtifact(o.checkout, a)
    if (d) out.artifacts!.push({path: a, ...d})
    else out.missing_artifacts!.push(a)
  }
  return out
}

export type Judged = Pick<VerdictBody, 'valid' | 'outcome' | 'metric' | 'verified_metrics' | 'violations' | 'needs_retry' | 'invalid_kind'> & {baseline?: VerdictBody['baseline']}

/**
 * The contract's validity rules applied to one observation (pure): a run that did not give
 * a trustworthy number is needs_retry with a stop reason; a valid run is positive, neutral
 * or negative against the baseline's value of the same repetition, beyond the margin.
 */
export function judgeObservation(obs: Pick<ObservationBody, 'ran' | 'exit_code' | 'signal' | 'timed_out' | 'metrics' | 'metrics_error' | 'missing_artifacts' | 'boundary' | 'timeout_seconds' | 'retry'>, contract: Contract, baseline?: {value: number; verdict?: string}): Judged {
  if (!obs.boundary.clean) return {valid: false, outcome: 'invalid', invalid_kind: 'boundary', violations: [...(obs.boundary.protected ?? []).map(p => `protected path changed: ${p}`), ...(obs.boundary.outside ?? []).map(p => `outside the editable scope: ${p}`), ...(obs.boundary.links ?? []).map(p => `not a regular file (a symbolic link, a submodule, or .gitattributes/.gitmodules): ${p}`)]}
  const retries = contract.resume.max_retries - (obs.retry ?? 0)
  const retry = (stop_reason: NonNullable<Judged['needs_retry']>['stop_reason'], why: string): Judged => ({
    valid: false,
    outcome: 'invalid',
    invalid_kind: 'needs_retry',
    violations: [why],
    needs_retry: {stop_reason, resume: retries > 0 ? (stop_reason === 'timeout' ? {action: 'retry_longer', timeout_seconds: (obs.timeout_seconds ?? 0) * contract.resume.timeout_multiplier, retries_left: retries} : {action: 'retry', retries_left: retries}) : {action: 'abandon', retries_left: 0}},
  })
  if (!obs.ran) return {valid: false, outcome: 'invalid', invalid_kind: 'not_run', violations: ['the evaluator did not run']}
  if (obs.timed_out) return retry('timeout', `the evaluator ran past its timeout of ${obs.timeout_seconds} s and was killed`)
  if (obs.exit_code === 127 && !obs.metrics) return retry('spawn', 'the evaluator command could not be started')
  if (obs.exit_code !== 0) return retry('crash', obs.signal ? `the evaluator was killed by ${obs.signal}` : `the evaluator exited with code ${obs.exit_code}`)
  if (obs.metrics_error) return retry('unparseable_metrics', `the metrics file is unreadable: ${obs.metrics_error}`)
  if (!obs.metrics) return retry('missing_metrics', 'the evaluator wrote no metrics file')
  if (obs.missing_artifacts?.length) return retry('missing_artifacts', `required artifacts missing: ${obs.missing_artifacts.join(', ')}`)
  // own keys only: `{"__proto__": {"score": 100}}` must not be read as a score through a prototype
  const own = (k: string) => Object.prototype.hasOwnProperty.call(obs.metrics, k)
  const raw = own(contract.metric.name) ? obs.metrics[contract.metric.name] : undefined
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^(-?Infinity|NaN)$/.test(raw) ? Number(raw) : undefined
  if (value === undefined) return retry('missing_metrics', `the metrics file has no number "${contract.metric.name}"`)
  // (with finite_metrics off too: a record holds finite numbers only, and a run that could not be
  // recorded was lost, and its attempt stuck — every rerun met the same error)
  if (!Number.isFinite(value)) return retry('non_finite_metric', `"${contract.metric.name}" is ${value}, not a finite number`)
  const missing = contract.validity.required_metrics.filter(k => !own(k))
  if (missing.length) return retry('missing_metrics', `the metrics file lacks ${missing.join(', ')}`)
  const metric = {name: contract.metric.name, value, direction: contract.metric.direction}
  const verified = Object.fromEntries(Object.entries(obs.metrics).filter(([, v]) => typeof v === 'number' && Number.isFinite(v)))
  if (!baseline) return {valid: true, outcome: 'neutral', metric, verified_metrics: verified, violations: []}
  const g = gain(contract, value, baseline.value)
  if (!Number.isFinite(g)) return retry('non_finite_metric', `the difference of "${contract.metric.name}" ${value} from the baseline's ${baseline.value} is beyond what a number holds`)
  const outcome = g > contract.metric.margin ? 'positive' : g < -contract.metric.margin ? 'negative' : 'neutral'
  return {valid: true, outcome, metric, verified_metrics: verified, violations: [], baseline: {value: baseline.value, ...(baseline.verdict ? {verdict: baseline.verdict} : {}), gain: Number.isFinite(g * 1e9) ? Math.round(g * 1e9) / 1e9 : g}}
}
