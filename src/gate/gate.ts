import {parse as parseYaml} from '../vendor/yaml.js'
import {assertResearchFile} from '../records/index.js'
import type {ResearchContract} from '../records/types.js'
import {runGit} from '../store/git/native.js'
import {readFileAt, resolveRev} from '../store/git/commits.js'
import type {GitRecordStore} from '../store/index.js'
import {ExpError, NotFoundError} from '../errors/index.js'
import {runEvaluation} from '../evals/runner/run.js'
import {compareRuns, type Comparison} from '../loop/compare.js'
import {holdoutChecks, validationChecks, verdictOf, type Check} from '../loop/policy.js'
import {policyAt} from '../loop/promote.js'
import type {EvalRunOptions} from '../loop/evaluate.js'
import {skillPath} from '../loop/files.js'
import {CONTRACT_YAML} from '../research/templates.js'
import {checkScope, skillsTouched, type ScopeReport} from './scope.js'

export interface GateSkill {
  skill: string
  validation: {base: number; head: number; comparison: Comparison; evaluations: string[]}
  holdout: {base: number; head: number; evaluations: string[]}
  checks: Check[]
  verdict: 'accept' | 'reject'
}

export interface GateResult {
  base: string
  head: string
  scope: ScopeReport
  skills: GateSkill[]
  passed: boolean
  reasons: string[]
}

async function contractAt(store: GitRecordStore, commit: string): Promise<Pick<ResearchContract, 'editable_scope' | 'protected_scope'>> {
  const bytes = await readFileAt(store, commit, '.research/contract.yaml')
  const doc = (parseYaml(bytes ? bytes.toString('utf8') : CONTRACT_YAML) ?? {}) as ResearchContract
  assertResearchFile('contract', doc, '.research/contract.yaml')
  return doc
}

/**
 * `exp gate`: what CI runs on a pull request. The contract and the policy come from the BASE
 * (a pull request cannot loosen its own gate). Fails when the diff leaves the editable
 * scope or touches a protected path; otherwise every changed skill is evaluated, head
 * against base, on validation and held-out, recorded on the `ci` lane, and judged by the
 * promotion policy.
 */
export async function gate(store: GitRecordStore, o: EvalRunOptions & {base: string; head: string; repeat?: number; approvedBy?: string}): Promise<GateResult> {
  const base = await resolveRev(store, o.base)
  const head = await resolveRev(store, o.head)
  if (!base) throw new NotFoundError('base revision', o.base, 'pass --base REF (in a pull request: origin/<target branch>)')
  if (!head) throw new NotFoundError('head revision', o.head)
  const mb = (await runGit(['--git-dir', store.commonDir, 'merge-base', base, head], {cwd: store.commonDir, allowFail: true})).stdout.toString().trim() || base
  const changed = (await runGit(['--git-dir', store.commonDir, 'diff', '--name-only', mb, head], {cwd: store.commonDir})).stdout.toString().split('\n').filter(Boolean)
  const scope = checkScope(changed, await contractAt(store, base))
  const reasons: string[] = []
  if (scope.outside.length) reasons.push(`outside the editable scope: ${scope.outside.join(', ')}`)
  if (scope.protected.length) reasons.push(`protected paths changed: ${scope.protected.join(', ')}`)
  const skills: GateSkill[] = []
  if (scope.ok) {
    const policy = await policyAt(store, base)
    for (const skill of skillsTouched(changed)) {
      if (!(await readFileAt(store, head, skillPath(skill)))) throw new ExpError('E_USAGE', `the head removes ${skillPath(skill)}`, {hint: 'a gate evaluates skills that exist on both sides'})
      const pair = async (split: 'validation' | 'holdout') => {
        const common = {...o, repo: store.repo, split, repeat: o.repeat ?? 2}
        const b = await runEvaluation(store, {...common, skill: `${mb}:${skillPath(skill)}`, role: 'gate-base'})
        let comparison: Comparison | undefined
        const h = await runEvaluation(store, {...common, skill: `${head}:${skillPath(skill)}`, role: 'gate-head', decorate: (full, verified) => ({...full, comparison: (comparison = compareRuns(b.private_evaluation ?? b.evaluation, b.verified, verified))})})
        return {b, h, comparison: comparison!}
      }
      const v = await pair('validation')
      const ho = await pair('holdout')
      const checks = [...validationChecks(policy.policy, {candidate: {...v.h.body, comparison: v.comparison}, baseline: v.b.body, approvedBy: o.approvedBy}), ...holdoutChecks(policy.policy, {candidate: {...v.h.body, comparison: v.comparison}, baseline: v.b.body, holdout: {candidate: ho.h.body, baseline: ho.b.body}})]
      const {verdict, reasons: why} = verdictOf(checks)
      if (verdict === 'reject') reasons.push(...why.map(r => `${skill}: ${r}`))
      skills.push({skill, validation: {base: v.b.success_rate, head: v.h.success_rate, comparison: v.comparison, evaluations: [v.h.evaluation, v.b.evaluation]}, holdout: {base: ho.b.success_rate, head: ho.h.success_rate, evaluations: [ho.h.evaluation, ho.b.evaluation]}, checks, verdict})
    }
  }
  return {base: mb, head, scope, skills, passed: scope.ok && skills.every(s => s.verdict === 'accept'), reasons}
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`

/** The Markdown a CI job shows (also appended to $GITHUB_STEP_SUMMARY). */
export function gateMarkdown(r: GateResult): string {
  const out = [`## exp gate: ${r.passed ? 'PASS' : 'FAIL'}`, '', `base \`${r.base.slice(0, 12)}\`, head \`${r.head.slice(0, 12)}\`, ${r.scope.changed.length} file(s) changed.`, '']
  if (!r.scope.ok) {
    out.push('### Scope', '')
    for (const p of r.scope.outside) out.push(`- outside the editable scope: \`${p}\``)
    for (const p of r.scope.protected) out.push(`- protected: \`${p}\``)
    out.push('')
  }
  for (const s of r.skills) {
    out.push(`### ${s.skill}: ${s.verdict.toUpperCase()}`, '', '| split | base | head |', '| --- | --- | --- |', `| validation | ${pct(s.validation.base)} | ${pct(s.validation.head)} |`, `| holdout | ${pct(s.holdout.base)} | ${pct(s.holdout.head)} |`, '')
    const c = s.validation.comparison
    out.push(`wins ${c.wins}, losses ${c.losses}, ties ${c.ties}; McNemar p ${c.mcnemar_p.toFixed(3)}; regressions ${c.regressions.length}`, '')
    for (const k of s.checks) out.push(`- ${k.passed ? '✅' : '❌'} ${k.name}: ${k.detail}`)
    out.push('')
  }
  if (!r.skills.length && r.scope.ok) out.push('No skill changed: nothing to evaluate.', '')
  return out.join('\n')
}
