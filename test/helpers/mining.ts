import {prepare, type RecordDraft} from '../../src/records/index.js'
import type {ManifestBody, Split, TraceBody, VerificationBody} from '../../src/records/types.js'
import type {MinedTrace} from '../../src/mining/index.js'

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
}

const DIG = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`
const OID = 'a'.repeat(40)
export const MANIFEST = manifestDraft('train')
export const MANIFEST_ID = prepare(MANIFEST).id

export function manifestDraft(split: Split, seed = 1): RecordDraft<'manifest'> {
  const body: ManifestBody = {purpose: 'run', split, dataset: {tree: OID, scenarios: ['s1']}, skill: {name: 'onboarding', blob: OID}, environment: {world: 'w1', grader: 'g1', tools: DIG(9)}, agent: {name: 'scripted'}, seed, repeat: 1}
  return {kind: 'manifest', body}
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
  const body: TraceBody = {manifest, scenario: s.task, split, repetition: 0, task: s.text ?? `Please handle ${s.task}.`, agent: {name: 'scripted'}, skill: {name: 'onboarding', blob: OID}, messages: [], actions, final_answer: 'done', usage: {tool_calls: actions.length, tokens_in: 0, tokens_out: 0, latency_ms: 0}, status: 'completed'}
  const trace: RecordDraft<'trace'> = {kind: 'trace', key: name, body, cites: [manifest]}
  const {id, digest} = prepare(trace)
  const valid = s.valid ?? true
  const vb: VerificationBody = {
    trace: id, trace_digest: digest, manifest, scenario: s.task, split, grader: {version: 'g1', digest: DIG(7)}, valid, passed: valid && s.passed,
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
