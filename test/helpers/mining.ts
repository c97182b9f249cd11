import {prepare, type RecordDraft} from '../../src/records/index.js'
import type {ManifestBody, Split, TraceBody, VerificationBody} from '../../src/records/types.js'
import type {MinedTrace, VerdictCheck} from '../../src/mining/index.js'

/**
 * Hand-built runs for the miner's tests. Tool names are made up on purpose: the miner must
 * work from the shape of a trace alone. A step is `tool`, `tool!CODE`, or an object with a
 * result and arguments; tools named get_* / search_* are reads, every other tool changes the
 * world (its state digests differ), which is all the miner knows about reads and writes.
 */
export type Step = string | {tool: string; code?: string; result?: unknown; args?: Record<string, unknown>}

export interface RunSpec {
  task: string
  passed: boolean
  steps: Step[]
  text?: string
  split?: Split
  valid?: boolean
  manifest?: string
  /** the run's repetition of its task (default 0): one episode per task and repetition of a manifest is mined (numbered() sets them) */
  repetition?: number
}

const DIG = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`
const OID = 'a'.repeat(40)
/** The tasks (scenarios) the hand-made manifests plan, each up to REPEAT times. */
export const TASKS = ['A', 'B', 'C', 'D', 'H', 's1']
const REPEAT = 100

export const MANIFEST = manifestDraft('train')
export const MANIFEST_ID = prepare(MANIFEST).id

export function manifestDraft(split: Split, seed = 1): RecordDraft<'manifest'> {
  const body: ManifestBody = {purpose: 'run', split, dataset: {tree: OID, scenarios: TASKS}, skill: {name: 'onboarding', blob: OID}, environment: {world: 'w1', grader: 'g1', tools: DIG(9)}, agent: {name: 'scripted'}, seed, repeat: REPEAT}
  return {kind: 'manifest', body}
}

/** Runs numbered as a run of them would: each task's runs get repetitions 0, 1, 2… in order. */
export function numbered<T extends Record<string, RunSpec>>(specs: T): T {
  const next = new Map<string, number>()
  return Object.fromEntries(Object.entries(specs).map(([name, s]) => {
    const key = `${s.manifest ?? ''}\u0000${s.task}`
    const rep = next.get(key) ?? 0
    next.set(key, rep + 1)
    return [name, {...s, repetition: rep}]
  })) as T
}

/** The final answer of a hand-made run says how it went: what fixtureVerdicts grades by. */
const answerOf = (valid: boolean, passed: boolean) => (!valid ? 'crashed' : passed ? 'done' : 'not done')

/**
 * The grader of hand-made runs (they cannot be replayed in the world): a verdict stands when
 * it says what the run's final answer says. A verification with a verdict flipped, of a run's
 * very bytes, is forged, as a replay finds it in a real one.
 */
export const fixtureVerdicts: VerdictCheck = (trace, v) => {
  const valid = trace.body.final_answer !== 'crashed'
  const passed = trace.body.final_answer === 'done'
  if (!TASKS.includes(trace.body.scenario)) return {stands: false, why: 'forged', reason: `no task ${trace.body.scenario}`}
  return v.valid === valid && v.passed === (valid && passed) && v.outcome === (!valid ? 'invalid' : passed ? 'positive' : 'negative') ? {stands: true} : {stands: false, why: 'forged', reason: 're-grading gives another verdict'}
}

/** The trace and verification drafts of one run (key-derived ids: the run's name). */
export function runDrafts(name: string, s: RunSpec): {trace: RecordDraft<'trace'>; verification: RecordDraft<'verification'>} {
  let state = 0
  const actions: TraceBody['actions'] = s.steps.map((step, index) => {
    const o = typeof step === 'string' ? {tool: step.split('!')[0]!, code: step.split('!')[1]} : step
    const write = !/^(get|search)_/.test(o.tool)
    const before = DIG(state)
    if (write && !o.code) state++
    const a: TraceBody['actions'][number] = {index, tool: o.tool, arguments: o.args ?? {}, ok: !o.code, timestamp: '2026-01-01T00:00:00.000Z', state_before: before, state_after: DIG(state)}
    if (o.code) a.error = {code: o.code, message: `${o.tool} failed`}
    else a.result = o.result ?? {}
    return a
  })
  const manifest = s.manifest ?? MANIFEST_ID
  const split = s.split ?? 'train'
  const valid = s.valid ?? true
  const repetition = s.repetition ?? 0
  const body: TraceBody = {manifest, scenario: s.task, split, repetition, task: s.text ?? `Please handle ${s.task}.`, agent: {name: 'scripted'}, skill: {name: 'onboarding', blob: OID}, messages: [], actions, final_answer: answerOf(valid, s.passed), usage: {tool_calls: actions.length, tokens_in: 0, tokens_out: 0, latency_ms: 0}, status: 'completed'}
  const trace: RecordDraft<'trace'> = {kind: 'trace', key: name, body, cites: [manifest]}
  const {id, digest} = prepare(trace)
  const vb: VerificationBody = {
    trace: id, trace_digest: digest, manifest, scenario: s.task, split, repetition, grader: {version: 'g1', digest: DIG(7)}, valid, passed: valid && s.passed,
    outcome: !valid ? 'invalid' : s.passed ? 'positive' : 'negative', invariants: [{id: 'goal', passed: s.passed, message: s.passed ? 'ok' : 'not reached'}], collateral: [], constraint_violations: [],
    scores: {success: s.passed ? 1 : 0, violations: 0, tool_calls: actions.length, errors: 0, tokens: 0, latency_ms: 0, trajectory_length: actions.length},
  }
  return {trace, verification: {kind: 'verification', key: `${name}/verification`, body: vb, cites: [id, manifest]}}
}

export function run(name: string, s: RunSpec): MinedTrace {
  const d = runDrafts(name, s)
  return {id: prepare(d.trace).id, body: d.trace.body, verification: {id: prepare(d.verification).id, body: d.verification.body}}
}


/** Many runs at once: `name: spec`. */
export function runs(specs: Record<string, RunSpec>): {traces: MinedTrace[]; id: (...names: string[]) => string[]} {
  const byName = new Map(Object.entries(specs).map(([n, s]) => [n, run(n, s)]))
  return {traces: [...byName.values()], id: (...names) => names.map(n => byName.get(n)!.id).sort()}
}

/** A deterministic shuffle (the input order must not matter). */
export function shuffled<T>(xs: readonly T[], seed = 7): T[] {
  const out = [...xs]
  let h = seed
  for (let i = out.length - 1; i > 0; i--) {
    h = (Math.imul(h, 1103515245) + 12345) >>> 0
    const j = h % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
