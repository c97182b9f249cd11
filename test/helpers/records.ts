import type {RecordDraft, Kind} from '../../src/records/index.js'

const OID = 'a'.repeat(40)
const DIG = `sha256:${'b'.repeat(64)}`
const RID = (p: string, n = 0) => `${p}-${n.toString(16).padStart(24, '0')}`
const SCORES = {success: 1, violations: 0, tool_calls: 3, errors: 0, tokens: 10, latency_ms: 30, trajectory_length: 3}

/** One valid draft of every kind; `n` varies the content (and so the id). */
export function sampleDraft(kind: Kind, n = 0): RecordDraft {
  const skill = {name: 'onboarding', blob: OID}
  const agent = {name: 'scripted'}
  switch (kind) {
    case 'manifest': return {kind, body: {purpose: 'run', split: 'train', dataset: {tree: OID, scenarios: ['s1']}, skill, environment: {world: 'w1', grader: 'g1', tools: DIG}, agent, seed: n, repeat: 1}}
    case 'trace': return {kind, body: {manifest: RID('mf'), scenario: `s${n}`, split: 'train', repetition: 0, task: 'Onboard Alice', agent, skill, messages: [{role: 'user', content: 'Onboard Alice'}], actions: [{index: 0, tool: 'get_employee', arguments: {id: 'E-1'}, ok: true, result: {id: 'E-1'}, timestamp: '2026-01-01T00:00:00.000Z', state_before: DIG, state_after: DIG}], final_answer: 'done', usage: {tool_calls: 1, tokens_in: 0, tokens_out: 0, latency_ms: 10}, status: 'completed'}}
    case 'verification': return {kind, body: {trace: RID('tr', n), trace_digest: DIG, manifest: RID('mf'), scenario: `s${n}`, split: 'train', grader: {version: 'g1', digest: DIG}, valid: true, passed: true, outcome: 'positive', invariants: [{id: 'i1', passed: true, message: 'ok'}], collateral: [], constraint_violations: [], scores: SCORES}}
    case 'evaluation': return {kind, body: {manifest: RID('mf'), split: 'validation', skill, agent, total: 10, passed: 7 + (n % 3), failed: 3 - (n % 3), invalid: 0, success_rate: (7 + (n % 3)) / 10, ci: [0.4, 0.9], per_scenario: [{scenario: 's1', runs: 1, passes: 1, invalid: 0}], scores: SCORES}}
    case 'evidence': return {kind, body: {pattern: 'missing_check', signature: `missing_check:get_inventory<assign_device#${n}`, description: 'passing runs check stock first', workflows: ['onboarding'], tools: ['get_inventory', 'assign_device'], supporting: [RID('tr', 1)], counterexamples: [RID('tr', 2)], support: 1, failures: 1, miner: {name: 'deterministic', version: '1'}}}
    case 'knowledge': return {kind, body: {slug: `inventory-check-${n}`, claim: {type: 'procedure', text: 'Check available inventory before assigning hardware.'}, scope: {workflows: ['onboarding']}, conditions: [], evidence: {supporting_runs: [RID('tr', 1)], counterexamples: [], evidence_ids: [RID('ed', 1)]}, statistics: {support: 8, failures: 2}, confidence: 0.8, status: 'candidate', supersedes: [], contradicts: []}}
    case 'hypothesis': return {kind, body: {statement: `adding step ${n} raises validation success`, mechanism: 'fewer out-of-stock errors', expected_effect: {metric: 'success_rate', direction: 'increase', split: 'validation'}, conditions: [], mechanism_family: 'missing_check'}}
    case 'recall': return {kind, body: {purpose: 'propose', scope: {skill: 'onboarding', workflows: ['onboarding']}, budget: {items: 8, tokens: 1200}, used: {items: 1, tokens: 20}, snapshot: {lamport: n, knowledge: 1}, items: [{knowledge: RID('kn', 1), rank: 1, score: 0.9, breakdown: {relevance: 1, support: 0.8, confidence: 0.8, recency: 1, novelty: 1, redundancy: 0}, tokens: 20, text: 'Check inventory'}]}}
    case 'proposal': return {kind, body: {skill: 'onboarding', branch: `exp/proposal/p${n}`, base: {commit: OID, skill_blob: OID}, head: {commit: OID, skill_blob: OID}, patch: {diff: '@@ -1 +1 @@', edits: [], size: {added: 1, removed: 0, changed: 1}, sections: ['Procedure'], normalized: DIG}, reason: `reason ${n}`, knowledge: [RID('kn', 1)], recall: RID('rc', 1), proposer: {name: 'deterministic', version: '1'}}}
    case 'decision': return {kind, body: {proposal: RID('pr', n), verdict: 'reject', policy: {version: '1', digest: DIG}, evaluations: [RID('el', 1)], checks: [{name: 'success', passed: false, detail: 'no improvement'}], reasons: ['no improvement'], regressions: []}}
    case 'claim': return {kind, body: {hypothesis: RID('hy', n), holder: 'alice', ttl_seconds: 60, expires_at: '2026-01-01T00:01:00.000Z'}}
    case 'release': return {kind, body: {hypothesis: RID('hy', n), holder: 'alice'}}
    case 'note': return {kind, body: {text: `note ${n}`}}
    case 'attempt': return {kind, body: {contract: {name: 'tuning', digest: DIG}, branch: `exp/attempt/a${n}`, base: {commit: OID}, ordinal: n + 1}}
    case 'observation': return {kind, body: {attempt: RID('at', n), contract: {name: 'tuning', digest: DIG}, split: 'dev', repetition: 0, source: {commit: OID, tree: OID}, boundary: {clean: true, changed: ['params.json']}, evaluator: {id: 'command:tuning', version: '1', digest: DIG}, seed: n, environment: {node: 'v20'}, ran: true, exit_code: 0, signal: null, timed_out: false, duration_ms: 10, metrics: {score: 0.5 + n / 100}}}
    case 'verdict': return {kind, body: {observation: RID('ob', n), observation_digest: DIG, attempt: RID('at', n), contract: {name: 'tuning', digest: DIG}, split: 'dev', repetition: 0, evaluator: {id: 'command:tuning', version: '1', digest: DIG}, valid: true, outcome: 'neutral', metric: {name: 'score', value: 0.5 + n / 100}, violations: []}}
  }
}
