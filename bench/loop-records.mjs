// Record drafts for the projection benchmark: what the compiler loop writes per iteration
// (hypothesis, claim, recall, proposal, baseline and candidate evaluations, sometimes a
// held-out one, a decision), deterministic for a given iteration index.
import {prepare} from '../dist/records/index.js'

const hex = (n, w) => n.toString(16).padStart(w, '0')
const OID = i => hex(i, 8).repeat(5)
const DIG = i => `sha256:${hex(i, 8).repeat(8)}`
const RID = (p, i) => `${p}-${hex(i, 24)}`
const SC = (s) => ({success: s, violations: 0, tool_calls: 6, errors: 0, tokens: 0, latency_ms: 120, trajectory_length: 6})
const SKILL = {name: 'onboarding', blob: OID(7)}
const AGENT = {name: 'scripted'}
const SCEN = Array.from({length: 12}, (_, k) => `onb-${k}`)

function evaluation(i, role, split, rate, extra = {}) {
  const passed = Math.round(rate * 12)
  const per = split === 'holdout' ? [] : SCEN.map((scenario, k) => ({scenario, runs: 1, passes: k < passed ? 1 : 0, invalid: 0, failed_invariants: k < passed ? [] : ['device-assigned'], verifications: [RID('vr', i * 100 + k)]}))
  return {manifest: RID('mf', i * 10 + (role === 'baseline' ? 1 : 2)), split, role, proposal: RID('pr', 0), skill: SKILL, agent: AGENT, total: 12, passed, failed: 12 - passed, invalid: 0, success_rate: passed / 12, ci: [0.3, 0.9], ci_method: 'wilson', repeat: 1, per_scenario: per, scores: SC(passed / 12), ...extra}
}

/** The drafts of loop iteration `i` on `lane`, in append order. */
export function iteration(i, lane) {
  const out = []
  const add = d => (out.push(d), prepare(d).id)
  const kn = RID('kn', i % 500)
  const hyp = add({kind: 'hypothesis', body: {statement: `adding an inventory check before step ${i % 7} raises validation success on onboarding (variant ${i})`, mechanism: 'fewer out-of-stock failures', expected_effect: {metric: 'success_rate', direction: 'increase', split: 'validation'}, conditions: [], mechanism_family: i % 3 ? 'missing_check' : 'ordering', target: {skill: 'onboarding', workflows: ['onboarding']}, knowledge: [kn]}, cites: [kn]})
  // one iteration in ten is still open (no decision yet); half of those were never claimed
  const settled = i % 10 !== 9
  if (settled || i % 20 !== 19) add({kind: 'claim', body: {hypothesis: hyp, holder: lane, ttl_seconds: 3600, expires_at: '2026-01-01T01:00:00.000Z'}, cites: [hyp]})
  const rc = add({kind: 'recall', body: {purpose: 'propose', scope: {skill: 'onboarding', workflows: ['onboarding']}, budget: {items: 8, tokens: 1200}, used: {items: 1, tokens: 20}, snapshot: {lamport: i, knowledge: 1}, items: [{knowledge: kn, rank: 1, score: 0.9, breakdown: {relevance: 1, support: 0.8, confidence: 0.8, recency: 1, novelty: 1, redundancy: 0}, tokens: 20, text: 'Check inventory before assigning a device.'}]}, cites: [kn]})
  const diff = `@@ -10,3 +10,4 @@\n ## Procedure\n 1. Look up the employee.\n+2. Check inventory for the requested device (iteration ${i}).\n 3. Assign the device.\n`
  const pr = add({kind: 'proposal', body: {skill: 'onboarding', branch: `exp/proposal/${RID('pr', i)}`, base: {commit: OID(i), skill_blob: OID(7)}, head: {commit: OID(i + 1), skill_blob: OID(i + 2)}, patch: {diff, edits: [{op: 'insert', section: 'Procedure', text: 'Check inventory'}], size: {added: 1, removed: 0, changed: 1}, sections: ['Procedure'], normalized: DIG(i)}, reason: 'passing runs check stock first', knowledge: [kn], recall: rc, hypothesis: hyp, proposer: {name: 'deterministic', version: '1'}, iteration: i}, cites: [rc, hyp, kn]})
  if (!settled) return out
  const fix = b => ({...b, proposal: pr})
  const base = add({kind: 'evaluation', body: fix(evaluation(i, 'baseline', 'validation', 0.5)), cites: [pr]})
  const better = i % 4 !== 0
  const rate = better ? 0.75 : 0.42
  const cmp = (b, r) => ({baseline: b, wins: better ? 3 : 0, losses: better ? 0 : 1, ties: 9, mcnemar_p: better ? 0.25 : 1, diff: r - 0.5, bootstrap_ci: [-0.1, 0.4], regressions: [], scores_baseline: SC(0.5), scores_candidate: SC(r)})
  const cand = add({kind: 'evaluation', body: fix(evaluation(i, 'candidate', 'validation', rate, {comparison: cmp(base, rate)})), cites: [pr, base]})
  const evals = [base, cand]
  if (better) evals.push(add({kind: 'evaluation', body: fix(evaluation(i, 'candidate', 'holdout', 0.7, {comparison: cmp(base, 0.7), holdout_looks: 1})), cites: [pr]}))
  const accept = better && i % 2 === 1
  add({kind: 'decision', body: {proposal: pr, hypothesis: hyp, verdict: accept ? 'accept' : 'reject', policy: {version: '1', digest: DIG(2)}, evaluations: evals, checks: [{name: 'success', passed: better, detail: `validation 0.50 -> ${rate.toFixed(2)}`}], reasons: [accept ? 'improves' : 'no improvement'], regressions: [], ...(accept ? {merge: {commit: OID(i + 3), branch: 'main'}} : {})}, cites: [pr, ...evals]})
  return out
}
