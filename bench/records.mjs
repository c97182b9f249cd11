// Realistic record drafts for the store benchmarks: the mix a run writes (traces and
// verifications dominate), deterministic for a given index.
const OID = i => (i.toString(16).padStart(8, '0')).repeat(5)
const DIG = i => `sha256:${(i.toString(16).padStart(8, '0')).repeat(8)}`
const MF = 'mf-' + '1'.repeat(24)
const SC = {success: 1, violations: 0, tool_calls: 6, errors: 1, tokens: 0, latency_ms: 120, trajectory_length: 6}
const TOOLS = ['get_employee', 'get_policy', 'get_inventory', 'assign_device', 'grant_access', 'complete_onboarding']

export function draft(i) {
  const k = i % 10
  const skill = {name: 'onboarding', blob: OID(7)}
  const agent = {name: 'scripted'}
  if (k < 4) {
    return {kind: 'trace', key: `bench/${i}`, body: {manifest: MF, scenario: `onb-${i % 48}`, split: 'train', repetition: i, task: `Onboard employee E-${1000 + (i % 97)} starting Monday with a laptop and access to GitHub and Jira.`, agent, skill,
      messages: [{role: 'user', content: 'Onboard the new hire.'}, {role: 'assistant', content: 'Done.'}],
      actions: TOOLS.map((tool, j) => ({index: j, tool, arguments: {employee_id: `E-${1000 + (i % 97)}`, step: j}, ok: j !== 3, ...(j === 3 ? {error: {code: 'OUT_OF_STOCK', message: 'no laptops of that model in stock'}} : {result: {status: 'ok', id: `R-${i}-${j}`}}), timestamp: '2026-01-01T00:00:0' + j + '.000Z', state_before: DIG(i + j), state_after: DIG(i + j + 1)})),
      final_answer: 'Onboarding completed.', usage: {tool_calls: 6, tokens_in: 0, tokens_out: 0, latency_ms: 120}, status: 'completed'}}
  }
  if (k < 8) {
    return {kind: 'verification', key: `bench/v/${i}`, body: {trace: 'tr-' + (i.toString(16).padStart(24, '0')), trace_digest: DIG(i), manifest: MF, scenario: `onb-${i % 48}`, split: 'train', grader: {version: 'g1', digest: DIG(1)}, valid: true, passed: i % 3 !== 0, outcome: i % 3 ? 'positive' : 'negative',
      invariants: [{id: 'device-assigned', passed: true, message: 'laptop assigned'}, {id: 'no-open-blockers', passed: i % 3 !== 0, message: i % 3 ? 'ok' : 'completed with an open blocker', ...(i % 3 ? {} : {diff: [{path: 'employees.E-1.status', expected: 'blocked', actual: 'completed'}]})}],
      collateral: [], constraint_violations: [], scores: SC}}
  }
  if (k === 8) return {kind: 'decision', body: {proposal: 'pr-' + (i.toString(16).padStart(24, '0')), verdict: i % 20 ? 'reject' : 'accept', policy: {version: '1', digest: DIG(2)}, evaluations: ['el-' + '2'.repeat(24)], checks: [{name: 'success', passed: !!(i % 20 === 0), detail: 'validation 0.71 -> 0.74'}], reasons: ['regressions: 1 > 0'], regressions: []}}
  return {kind: 'note', body: {text: `observation ${i}: the agent skipped the inventory check`}}
}
