import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore, discoverRepo} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {createProposal} from '../../src/loop/proposal.js'
import {evaluateProposal, loadProposal} from '../../src/loop/evaluate.js'
import {promoteProposal, type PromoteResult} from '../../src/loop/promote.js'
import {initResearch} from '../../src/research/init.js'
import {addExample} from '../../src/research/example.js'
import {runEvaluation} from '../../src/evals/runner/run.js'
import type {Rule} from '../../src/knowledge/index.js'
import {renderRule} from '../../src/knowledge/index.js'
import {git, tempDir} from './repo.js'
import {cachedFixture} from './fixture-cache.js'
import {knowledge, INVENTORY, BLOCKERS} from './loop.js'

const NOW = () => new Date('2026-11-30T12:00:00.000Z')

/** The policy exp wrote before version 2: margins, regressions, tolerances and held-out. */
export const V1_POLICY = `version: "1"
success: {must_improve: true, min_delta: 0, allow_neutral: true}
regressions: {max: 0}
tolerances: {violations: 0, tool_calls: 0.25, errors: 0.5, tokens: 0.25, latency_ms: 0.25, trajectory_length: 0.25}
holdout: {required: true, must_not_worsen: true, tolerance: 0}
evidence: {evaluators: [world], require_signed_evidence: false}
`
const LANE = 'me'

/** Escalating on every lookup with no match stops useful work: validation does not improve, so it is rejected. */
export const BAD: Rule = {kind: 'on_result', tool: 'get_employee', result: 'no_match', calls: ['escalate'], stop: true}

export interface Step {
  rule: Rule
  line: string
  knowledge: string
  evidence?: string
  /** the failing train traces the evidence cites */
  failing: string[]
  manifest?: string
  proposal: string
  result: PromoteResult
}

export interface History {
  repo: string
  store: GitRecordStore
  /** main before any promotion: the commit that added the example (v1) */
  initial: string
  accepted: [Step, Step]
  rejected: Step
}

/** What the fixture build and its tests depend on: a change to any of them rebuilds it. */
const INPUTS = ['src', 'scenarios', 'skills', 'schemas', 'test/helpers/promotions.ts', 'test/helpers/loop.ts', 'test/helpers/fixture-cache.ts']

/**
 * A copy, for this test, of a real repository with loop history: train on v1, evidence
 * citing its failing traces, knowledge citing the evidence, promoted (v2); a bad rule
 * rejected; train on v2, more evidence and knowledge, promoted (v3). Built once (about
 * 12 s of episodes) and shared through cachedFixture.
 */
export async function historyRepo(t: {teardown(fn: () => void): void}): Promise<History> {
  const {dir, data} = await cachedFixture('history', INPUTS, buildHistory)
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  return {...data, repo, store}
}

async function buildHistory(repo: string): Promise<Omit<History, 'repo' | 'store'>> {
  await git(repo, 'init', '-q', '-b', 'main')
  await git(repo, 'config', 'user.name', 'exp test')
  await git(repo, 'config', 'user.email', 'test@exp.invalid')
  await git(repo, 'commit', '-q', '--allow-empty', '-m', 'init')
  await initResearch(discoverRepo(repo))
  await addExample(discoverRepo(repo), 'onboarding')
  const initial = (await git(repo, 'rev-parse', 'main')).trim()
  // a version 1 policy (no statistical test): one rule at a time is enough to promote, which
  // keeps this history small; decisions under it must still stand in every view
  fs.writeFileSync(path.join(repo, '.research/policy.yaml'), V1_POLICY)
  await git(repo, 'commit', '-q', '-am', 'a version 1 policy')
  const store = await GitRecordStore.open(repo)
  const opts = {agent: 'scripted', scenariosDir: path.join(repo, 'scenarios'), skillsDir: path.join(repo, 'skills'), cwd: repo, repo: store.repo, lane: LANE, seed: 42, repeat: 1, now: NOW}

  const train = async () => {
    const r = await runEvaluation(store, {...opts, repo: store.repo, workspace: new GitWorkspace(store), split: 'train', skill: 'main:skills/onboarding/SKILL.md', purpose: 'run'})
    const failing = r.verified.filter(v => v.body.valid && !v.body.passed).map(v => v.body.trace)
    const passing = r.verified.filter(v => v.body.passed).map(v => v.body.trace)
    return {manifest: r.manifest, failing, passing}
  }
  const step = async (rule: Rule, runs?: {manifest: string; failing: string[]; passing: string[]}): Promise<Step> => {
    let evidence: string | undefined
    const failing = runs?.failing.slice(0, 4) ?? []
    if (runs) {
      const counter = runs.passing.slice(0, 2)
      const body = {pattern: 'missing_check' as const, signature: `missing_check:${renderRule(rule).slice(0, 40)}`, description: 'failing runs skip what passing runs do', workflows: ['onboarding'], tools: [rule.tool], supporting: failing, counterexamples: counter, support: failing.length, failures: counter.length, miner: {name: 'test', version: '1'}}
      evidence = (await store.append({kind: 'evidence', body, cites: [...failing, ...counter]}, {lane: LANE, now: NOW})).id
    }
    const kb = knowledge(rule)
    if (evidence) kb.evidence = {supporting_runs: failing, counterexamples: [], evidence_ids: [evidence]}
    const kn = (await store.append({kind: 'knowledge', body: kb, cites: evidence ? [evidence] : []}, {lane: LANE, now: NOW})).id
    // one rule per proposal: the rejected rule stays recalled but is never proposed again alone
    const created = (await createProposal(store, new GitWorkspace(store), await store.ledger(), {skill: 'onboarding', lane: LANE, mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, maxRules: 1, now: NOW}))!
    const proposal = loadProposal(await store.ledger(), created.proposal)
    await evaluateProposal(store, new GitWorkspace(store), proposal, 'validation', opts)
    const result = await promoteProposal(store, new GitWorkspace(store), await store.ledger(), proposal, {...opts, mainRef: 'refs/heads/main'})
    return {rule, line: renderRule(rule), knowledge: kn, ...(evidence ? {evidence} : {}), failing, ...(runs ? {manifest: runs.manifest} : {}), proposal: created.proposal, result}
  }

  const first = await step(INVENTORY, await train())
  const v2runs = await train()
  const rejected = await step(BAD)
  const second = await step(BLOCKERS, v2runs)
  for (const [s, want] of [[first, 'accept'], [rejected, 'reject'], [second, 'accept']] as const) {
    if (s.result.verdict !== want) throw new Error(`fixture: ${s.line} was ${s.result.verdict}, expected ${want}: ${s.result.reasons.join('; ')}`)
  }
  await store.close()
  return {initial, accepted: [first, second], rejected}
}
