import {MemoryRecordStore, type Ledger} from '../../src/store/index.js'
import type {RecordDraft} from '../../src/records/index.js'
import type {EvaluationBody} from '../../src/records/types.js'
import type {MainCommit} from '../../src/projections/mainline.js'
import {sampleDraft} from './records.js'

const NOW = () => new Date('2026-11-30T12:00:00.000Z')
const DIG = `sha256:${'d'.repeat(64)}`
export const OID = {c0: 'c'.repeat(40), h1: '1'.repeat(40), m1: 'e'.repeat(40), h2: '2'.repeat(40), B1: 'b1'.repeat(20), B2: 'b2'.repeat(20), B3: 'b3'.repeat(20)}
/** Markup in record text: every view must show it as text. */
export const NASTY = '<script>alert("x")</script> & co'
export const REASON = 'success improves: <b>worse</b> & "quoted"'

export interface MemoryHistory {
  ledger: Ledger
  /** the store behind it: a test appends more and reads a new ledger */
  store: MemoryRecordStore
  mainline: MainCommit[]
  ids: Record<'trace' | 'verification' | 'train' | 'evidence' | 'knowledge' | 'recall' | 'p1' | 'p2' | 'd1' | 'd2' | 'privateHoldout', string>
}

/**
 * An in-memory history of one accepted and one rejected proposal, records hand-made: what
 * the pure projections and renderers read, without git or episodes. Main is two commits:
 * the initial one (blob B1) and the promotion merge m1 (blob B2).
 */
export async function memoryHistory(): Promise<MemoryHistory> {
  const s = new MemoryRecordStore()
  const add = async (d: RecordDraft, priv = false) => (await s.append(d, {lane: 'me', now: NOW, private: priv})).id
  // a sample record of the kind with some body fields replaced
  const like = (kind: Parameters<typeof sampleDraft>[0], n: number, body: object, cites: string[] = []) => ({...sampleDraft(kind, n), body: {...(sampleDraft(kind, n).body as object), ...body}, cites}) as unknown as RecordDraft
  const base = sampleDraft('evaluation').body as EvaluationBody
  const evaluation = (o: Partial<EvaluationBody>, blob: string): RecordDraft => ({kind: 'evaluation', body: {...base, ...o, skill: {name: 'onboarding', blob}}})

  const trace = await add(like('trace', 1, {scenario: 'train-shortage'}))
  const verification = await add(like('verification', 1, {trace, passed: false, outcome: 'negative', invariants: [{id: 'device-procured', passed: false, message: 'no'}]}, [trace]))
  const train = await add(evaluation({split: 'train', role: 'run', total: 10, passed: 4, failed: 6, success_rate: 0.4}, OID.B1))
  const evidence = await add(like('evidence', 1, {supporting: [trace], counterexamples: [], support: 1, failures: 0}, [trace]))
  const knowledge = await add(like('knowledge', 1, {claim: {type: 'procedure', text: NASTY}, evidence: {supporting_runs: [trace], counterexamples: [], evidence_ids: [evidence]}}, [evidence]))
  const recall = await add(like('recall', 1, {items: [{knowledge, rank: 1, score: 4.5, breakdown: {relevance: 1, support: 1, confidence: 1, recency: 1, novelty: 1, redundancy: 0}, tokens: 9, text: NASTY}]}, [knowledge]))
  const proposal = (n: number, from: [string, string, string], to: [string, string, string], line: string): RecordDraft => {
    const edits = [{op: 'append', section: 'Procedure', lines: [line], knowledge: [knowledge]}]
    const patch = {diff: `+${line}`, edits, size: {added: 1, removed: 0, changed: 1}, sections: ['Procedure'], normalized: DIG}
    return like('proposal', n, {base: {commit: from[0], skill_blob: from[1], version: from[2]}, head: {commit: to[0], skill_blob: to[1], version: to[2]}, knowledge: [knowledge], recall, patch}, [recall, knowledge])
  }
  const p1 = await add(proposal(1, [OID.c0, OID.B1, '1'], [OID.h1, OID.B2, '2'], 'Check <stock> first.'))
  const v1b = await add(evaluation({split: 'validation', role: 'baseline', proposal: p1, success_rate: 0.5}, OID.B1))
  const cmp = (baseline: string) => ({baseline, wins: 3, losses: 1, ties: 4, mcnemar_p: 0.625, diff: 0.25, bootstrap_ci: [0, 0.5] as [number, number], regressions: [{scenario: 'val-x', invariants: ['a']}], scores_baseline: base.scores, scores_candidate: base.scores})
  const v1c = await add(evaluation({split: 'validation', role: 'candidate', proposal: p1, success_rate: 0.75, comparison: cmp(v1b)}, OID.B2))
  const h1b = await add(evaluation({split: 'holdout', role: 'baseline', proposal: p1, success_rate: 0.6, per_scenario: []}, OID.B1))
  const h1c = await add(evaluation({split: 'holdout', role: 'candidate', proposal: p1, success_rate: 0.7, per_scenario: []}, OID.B2))
  const privateHoldout = await add(evaluation({split: 'holdout', role: 'candidate', proposal: p1, success_rate: 0.7, total: 11}, OID.B2), true)
  const decision = (proposal: string, verdict: 'accept' | 'reject', evaluations: string[], extra: object): RecordDraft => ({kind: 'decision', body: {proposal, verdict, policy: {version: '1', digest: DIG}, evaluations, checks: [{name: 'success improves', passed: verdict === 'accept', detail: 'x'}], reasons: verdict === 'accept' ? ['ok'] : [REASON], regressions: [], ...extra}, cites: [proposal, ...evaluations]})
  const d1 = await add(decision(p1, 'accept', [v1c, v1b, h1c, h1b], {merge: {commit: OID.m1, branch: `exp/proposal/${p1}`}}))
  const p2 = await add(proposal(2, [OID.m1, OID.B2, '2'], [OID.h2, OID.B3, '3'], 'Escalate <everything>.'))
  const v2b = await add(evaluation({split: 'validation', role: 'baseline', proposal: p2, success_rate: 0.75}, OID.B2))
  const v2c = await add(evaluation({split: 'validation', role: 'candidate', proposal: p2, success_rate: 0.7, comparison: cmp(v2b)}, OID.B3))
  const d2 = await add(decision(p2, 'reject', [v2c, v2b], {rejected_ref: `refs/research/rejected/${p2}`}))
  const mainline: MainCommit[] = [
    {oid: OID.c0, parents: [], subject: 'exp: add the onboarding example', trailers: {}, skills: {onboarding: OID.B1}},
    {oid: OID.m1, parents: [OID.c0, OID.h1], subject: `exp: promote onboarding v2 (${p1})`, trailers: {'Exp-Promotes': [p1], 'Exp-Evidence': [`${v1c} ${v1b} ${h1c} ${h1b}`], 'Exp-Policy': [`1 ${DIG}`]}, skills: {onboarding: OID.B2}},
  ]
  return {ledger: await s.ledger(), store: s, mainline, ids: {trace, verification, train, evidence, knowledge, recall, p1, p2, d1, d2, privateHoldout}}
}
