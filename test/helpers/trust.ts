import path from 'node:path'
import {GitRecordStore, discoverRepo, type Ledger} from '../../src/store/index.js'
import type {EvaluationBody} from '../../src/records/types.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {createProposal} from '../../src/loop/proposal.js'
import {evaluateProposal, loadProposal} from '../../src/loop/evaluate.js'
import {initResearch} from '../../src/research/init.js'
import {addExample} from '../../src/research/example.js'
import type {Rule} from '../../src/knowledge/index.js'
import {makeRepo} from './repo.js'
import {knowledge} from './loop.js'

export const NOW = () => new Date('2026-12-01T12:00:00.000Z')

export interface PendingProposal {
  repo: string
  store: GitRecordStore
  proposal: string
  branch: string
  candidate: string
  baseline: string
  /** the real validation success rates */
  rates: {baseline: number; candidate: number}
  opts: {agent: string; scenariosDir: string; skillsDir: string; cwd: string; lane: string; seed: number; repeat: number; now: () => Date}
}

/**
 * A repository with the sealed example, one knowledge record carrying `rule`, the proposal
 * built from it and its real validation evaluation on lane `me`: nothing decided yet.
 */
export async function pendingProposal(t: {teardown(fn: () => void): void}, rule: Rule): Promise<PendingProposal> {
  const repo = await makeRepo(t)
  await initResearch(discoverRepo(repo))
  await addExample(discoverRepo(repo), 'onboarding')
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const opts = {agent: 'scripted', scenariosDir: path.join(repo, 'scenarios'), skillsDir: path.join(repo, 'skills'), cwd: repo, repo: store.repo, lane: 'me', seed: 42, repeat: 1, now: NOW}
  await store.append({kind: 'knowledge', body: knowledge(rule), cites: []}, {lane: 'me', now: NOW})
  const created = (await createProposal(store, new GitWorkspace(store), await store.ledger(), {skill: 'onboarding', lane: 'me', mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, maxRules: 1, now: NOW}))!
  const proposal = loadProposal(await store.ledger(), created.proposal)
  const ev = await evaluateProposal(store, new GitWorkspace(store), proposal, 'validation', opts)
  return {repo, store, proposal: created.proposal, branch: proposal.body.branch, candidate: ev.candidate.evaluation, baseline: ev.baseline.evaluation, rates: {baseline: ev.baseline.success_rate, candidate: ev.candidate.success_rate}, opts}
}

/**
 * What a lane owner forging a research note does first: copies of this clone's public
 * validation evaluations (the loop's own, of `role`), stripped of their proposal, appended on
 * lane `lane`; returns the copy's id. (A compare arm or a gain side must not stand on one.)
 */
export function validationCopier(store: GitRecordStore, ledger: Ledger): (role: string, lane: string) => Promise<string> {
  const validation = ledger.records({kinds: ['evaluation']}).filter(e => e.body.split === 'validation' && !ledger.get(e.id)!.private)
  return async (role, lane) => {
    const r = validation.find(e => e.body.role === role)!
    const {comparison: _c, role: _r, proposal: _p, ...body} = r.body as EvaluationBody
    return (await store.append({kind: 'evaluation', body, cites: r.cites.filter(c => c.startsWith('mf-') || c.startsWith('vr-'))}, {lane})).id
  }
}
