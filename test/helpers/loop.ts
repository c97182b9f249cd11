import type {EvaluationBody, KnowledgeBody, ScoreVector} from '../../src/records/types.js'
import type {Rule} from '../../src/knowledge/index.js'
import {renderRule} from '../../src/knowledge/index.js'
import type {Comparison} from '../../src/evals/compare.js'

export const SCORES: ScoreVector = {success: 0.5, violations: 0.2, tool_calls: 5, errors: 0.2, tokens: 20000, latency_ms: 800, trajectory_length: 12}

/** An evaluation body with just what the policy reads. */
export function evaluation(rate: number, scores: Partial<ScoreVector> = {}, comparison?: Partial<Comparison>): EvaluationBody & {comparison: Comparison} {
  return {
    manifest: 'mf-' + '0'.repeat(24),
    split: 'validation',
    skill: {name: 'onboarding', blob: 'a'.repeat(40)},
    agent: {name: 'scripted'},
    total: 32,
    passed: Math.round(rate * 32),
    failed: 32 - Math.round(rate * 32),
    invalid: 0,
    success_rate: rate,
    ci: [0, 1],
    per_scenario: [],
    scores: {...SCORES, ...scores},
    comparison: {baseline: 'el-' + '1'.repeat(24), wins: 0, losses: 0, ties: 32, mcnemar_p: 1, diff: 0, bootstrap_ci: [0, 0], regressions: [], scores_baseline: SCORES, scores_candidate: SCORES, ...comparison},
  }
}

/** A knowledge body carrying a rule of the skill language. */
export function knowledge(rule: Rule, o: {slug?: string; support?: number; failures?: number; confidence?: number; workflows?: string[]; unexplained?: string[]} = {}): KnowledgeBody {
  return {
    slug: o.slug ?? renderRule(rule).toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 60).replace(/-+$/, ''),
    claim: {type: 'procedure', text: renderRule(rule)},
    scope: {workflows: o.workflows ?? ['onboarding']},
    conditions: [],
    rule,
    unexplained: o.unexplained ?? [],
    evidence: {supporting_runs: [], counterexamples: [], evidence_ids: []},
    statistics: {support: o.support ?? 8, failures: o.failures ?? 2},
    confidence: o.confidence ?? 0.7,
    status: 'active',
    supersedes: [],
    contradicts: [],
  }
}

export const INVENTORY: Rule = {kind: 'before', tool: 'assign_device', calls: [{tool: 'get_inventory'}], guard: 'in_stock'}
export const BLOCKERS: Rule = {kind: 'never', tool: 'complete_onboarding', while: 'open_blockers'}
export const POLICY: Rule = {kind: 'before', tool: 'grant_access', calls: [{tool: 'get_policy'}, {tool: 'request_approval', when: 'policy_requires'}]}
export const NOT_FOUND: Rule = {kind: 'on_error', tool: 'get_employee', code: 'NOT_FOUND', calls: ['escalate'], stop: true}
