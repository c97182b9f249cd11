import {MemoryRecordStore, type Ledger} from '../../src/store/index.js'
import type {RecordDraft} from '../../src/records/index.js'
import type {EvaluationBody} from '../../src/records/types.js'

const OID = (n: number) => n.toString(16).padStart(40, '0')
const DIG = `sha256:${'c'.repeat(64)}`
const SC = (s: number) => ({success: s, violations: 0, tool_calls: 5, errors: 0, tokens: 0, latency_ms: 10, trajectory_length: 5})
export const T0 = Date.parse('2026-03-01T00:00:00.000Z')

export interface EvalSpec {
  role?: 'baseline' | 'candidate'
  split?: 'validation' | 'holdout' | 'train'
  rate?: number
  /** every episode invalid (crash, timeout) */
  invalid?: boolean
  baseline?: string
  diff?: number
  regressions?: number
  lane?: string
  cites?: string[]
}

/**
 * Builds research ledgers the way the compiler loop writes them, on an in-memory store
 * with a clock that advances one second per record (so claim expiries are predictable).
 */
export class Lab {
  readonly store = new MemoryRecordStore()
  private tick = 0
  private n = 0
  clock = () => new Date(T0 + ++this.tick * 1000)

  /** `seconds` after the start of the lab (claims written at tick k expire at k + ttl). */
  at(seconds: number): Date {
    return new Date(T0 + seconds * 1000)
  }

  async add(d: RecordDraft, lane: string, isPrivate = false): Promise<string> {
    return (await this.store.append(d, {lane, now: this.clock, private: isPrivate})).id
  }

  hypothesis(lane = 'a', extra: {direction?: 'increase' | 'decrease'; margin?: number; metric?: string; statement?: string; private?: boolean} = {}): Promise<string> {
    const body = {statement: extra.statement ?? `adding step ${++this.n} raises validation success`, mechanism: 'fewer failures', expected_effect: {metric: extra.metric ?? 'success_rate', direction: extra.direction ?? 'increase', split: 'validation' as const, ...(extra.margin !== undefined ? {margin: extra.margin} : {})}, conditions: [], mechanism_family: 'missing_check', target: {skill: 'onboarding', workflows: ['onboarding']}}
    return this.add({kind: 'hypothesis', body}, lane, extra.private)
  }

  claim(hyp: string, lane: string, ttl = 60): Promise<string> {
    const expires = new Date(T0 + (this.tick + 1 + ttl) * 1000).toISOString()
    return this.add({kind: 'claim', body: {hypothesis: hyp, holder: lane, ttl_seconds: ttl, expires_at: expires}, cites: [hyp]}, lane)
  }

  release(hyp: string, lane: string, claim?: string): Promise<string> {
    return this.add({kind: 'release', body: {hypothesis: hyp, holder: lane, ...(claim ? {claim} : {})}, cites: [hyp]}, lane)
  }

  proposal(hyp: string, lane = 'a', isPrivate = false): Promise<string> {
    const n = ++this.n
    return this.add({kind: 'proposal', body: {skill: 'onboarding', branch: `exp/proposal/p${n}`, base: {commit: OID(1), skill_blob: OID(2)}, head: {commit: OID(n + 10), skill_blob: OID(n + 11)}, patch: {diff: '@@', edits: [], size: {added: 1, removed: 0, changed: 1}, sections: ['Procedure'], normalized: DIG}, reason: 'r', knowledge: [], recall: 'rc-000000000000000000000001', hypothesis: hyp, proposer: {name: 'test', version: '1'}}, cites: [hyp]}, lane, isPrivate)
  }

  evaluation(proposal: string, s: EvalSpec = {}): Promise<string> {
    const rate = s.rate ?? 0.5
    const passed = s.invalid ? 0 : Math.round(rate * 10)
    const body: EvaluationBody = {manifest: `mf-${(++this.n).toString(16).padStart(24, '0')}`, split: s.split ?? 'validation', role: s.role ?? 'candidate', proposal, skill: {name: 'onboarding', blob: OID(3)}, agent: {name: 'scripted'}, total: 10, passed, failed: s.invalid ? 0 : 10 - passed, invalid: s.invalid ? 10 : 0, success_rate: s.invalid ? 0 : passed / 10, ci: [0, 1], per_scenario: [], scores: SC(rate)}
    if (s.baseline) body.comparison = {baseline: s.baseline, wins: 0, losses: 0, ties: 10, mcnemar_p: 1, diff: s.diff ?? rate - 0.5, bootstrap_ci: [0, 0], regressions: Array.from({length: s.regressions ?? 0}, (_, i) => ({scenario: `s${i}`, invariants: ['x']})), scores_baseline: SC(0.5), scores_candidate: SC(rate)}
    return this.add({kind: 'evaluation', body, cites: s.cites ?? [proposal]}, s.lane ?? 'a')
  }

  decision(proposal: string, verdict: 'accept' | 'reject', evaluations: string[], o: {hypothesis?: string; lane?: string; merge?: boolean} = {}): Promise<string> {
    return this.add({kind: 'decision', body: {proposal, verdict, policy: {version: '1', digest: DIG}, evaluations, checks: [], reasons: [verdict], regressions: [], ...(o.hypothesis ? {hypothesis: o.hypothesis} : {}), ...(o.merge ? {merge: {commit: OID(99), branch: 'main'}} : {})}, cites: [proposal, ...evaluations]}, o.lane ?? 'a')
  }

  note(hyp: string, action: 'retire' | 'reopen', lane = 'a'): Promise<string> {
    return this.add({kind: 'note', key: `${action}/${hyp}/${++this.n}`, body: {text: `${action} it`, about: [hyp], action}, cites: [hyp]}, lane)
  }

  /** A full accepted iteration: proposal, baseline, candidate (validation and held-out), accept. */
  async promoted(hyp: string, lane = 'a'): Promise<{proposal: string; decision: string}> {
    const p = await this.proposal(hyp, lane)
    const b = await this.evaluation(p, {role: 'baseline', lane})
    const c = await this.evaluation(p, {rate: 0.8, baseline: b, lane})
    const h = await this.evaluation(p, {rate: 0.7, baseline: b, split: 'holdout', lane})
    return {proposal: p, decision: await this.decision(p, 'accept', [b, c, h], {hypothesis: hyp, lane, merge: true})}
  }

  ledger(): Promise<Ledger> {
    return this.store.ledger()
  }
}
