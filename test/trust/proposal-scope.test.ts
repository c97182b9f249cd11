import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git} from '../helpers/repo.js'
import {BAD, historyRepo} from '../helpers/promotions.js'
import {pendingProposal} from '../helpers/trust.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {loadAuthority} from '../../src/trust/load.js'
import {Authority} from '../../src/trust/authority.js'
import {proposalViolations} from '../../src/loop/proposal-scope.js'
import type {ProposalBody} from '../../src/records/types.js'
import {recordId} from '../../src/records/index.js'

// Found attacking as the owner of another lane: a proposal record names its branch's commit,
// and nothing checked what that commit changes. A branch whose skill was better carried a
// weaker .research/policy.yaml and an edited scenarios/ folder onto main with its promotion:
// exp eval, exp promote (accept, merge) and exp fsck all passed it.

/** A copy of `id`'s proposal on lane mallory whose branch commit also changes `extra` files. */
async function smuggler(repo: string, store: {ledger(): Promise<import('../../src/store/index.js').Ledger>; append: import('../../src/store/index.js').RecordStore['append']}, id: string, extra: Record<string, string>): Promise<{id: string; commit: string}> {
  const ledger = await store.ledger()
  const body = ledger.load<'proposal'>(ledger.get(id)!).body as ProposalBody
  const wt = path.join(repo, '.git', 'smuggle')
  await git(repo, 'worktree', 'add', '-q', '--detach', wt, body.head.commit)
  for (const [f, text] of Object.entries(extra)) fs.writeFileSync(path.join(wt, f), text)
  await git(wt, 'add', '-A')
  await git(wt, 'commit', '-qm', `exp: propose ${body.skill}`)
  const commit = (await git(wt, 'rev-parse', 'HEAD')).trim()
  await git(repo, 'worktree', 'remove', '--force', wt)
  // (a keyed record's id is known before it is written: its branch is one of its own)
  const key = `smuggled/${Object.keys(extra).join(',')}`
  const branch = `exp/proposal/${recordId('proposal', '', key)}`
  await git(repo, 'update-ref', `refs/heads/${branch}`, commit)
  const r = await store.append({kind: 'proposal', key, body: {...body, branch, head: {...body.head, commit}}, cites: ledger.get(id)!.cites as string[]}, {lane: 'mallory'})
  return {id: r.id, commit}
}

t.test('a proposal whose branch changes more than its skill is neither evaluated nor promoted', async t => {
  const p = await pendingProposal(t, BAD)
  const main = (await git(p.repo, 'rev-parse', 'main')).trim()
  const ws = new GitWorkspace(p.store)
  const ledger = await p.store.ledger()
  t.same(await proposalViolations(ws, ledger.load<'proposal'>(ledger.get(p.proposal)!).body), [], 'what exp propose writes is in scope')
  const evil = await smuggler(p.repo, p.store, p.proposal, {'.research/policy.yaml': 'version: "1"\n# weaker\n', 'scenarios/extra.txt': 'x\n'})
  for (const args of [['eval', evil.id], ['promote', evil.id, '--lane', 'me']]) {
    const r = await exp(args, {cwd: p.repo})
    t.equal(r.code, 6, `exp ${args[0]}: ${r.stderr}`)
    t.match(r.stderr, new RegExp(`error: proposal ${evil.id} crosses its contract's boundary: protected path changed: .research/policy.yaml; protected path changed: scenarios/extra.txt`))
    t.match(r.stderr, /hint: a proposal's branch may change only skills\/onboarding\/SKILL\.md, its PURPOSE\.yaml and knowledge\/<slug>\.yaml/)
  }
  t.equal((await git(p.repo, 'rev-parse', 'main')).trim(), main, 'main did not move')
  t.notOk((await p.store.ledger()).select({kinds: ['evaluation', 'decision'], cites: evil.id}).length, 'nothing was evaluated or decided')
  // a file of another skill: not what a proposal of this one writes
  const ws2 = new GitWorkspace(p.store)
  const body = (await p.store.ledger()).load<'proposal'>((await p.store.ledger()).get(evil.id)!).body as ProposalBody
  const other = (await proposalViolations(ws2, {...body, skill: 'other'})).join('\n')
  t.match(other, /protected path changed: \.research\/policy\.yaml/)
  t.match(other, /not a file a proposal of other writes: skills\/onboarding\/SKILL\.md/, "another skill's file is not the proposal's")
})

t.test("a proposal record naming the main branch as its own is neither evaluated nor promoted (a reject would delete main)", async t => {
  const p = await pendingProposal(t, BAD)
  const main = (await git(p.repo, 'rev-parse', 'main')).trim()
  const ledger = await p.store.ledger()
  const body = ledger.load<'proposal'>(ledger.get(p.proposal)!).body as ProposalBody
  const forged = await p.store.append({kind: 'proposal', body: {...body, branch: 'main'}, cites: ledger.get(p.proposal)!.cites as string[]}, {lane: 'mallory'})
  for (const args of [['eval', forged.id], ['promote', forged.id, '--lane', 'me']]) {
    const r = await exp(args, {cwd: p.repo})
    t.equal(r.code, 5, `exp ${args[0]}: ${r.stderr}`)
    t.match(r.stderr, new RegExp(`proposal ${forged.id} names branch "main", not one of its own`))
  }
  t.equal((await git(p.repo, 'rev-parse', 'main')).trim(), main, 'main is where it was')
  t.notOk((await p.store.ledger()).select({kinds: ['evaluation', 'decision'], cites: forged.id}).length, 'nothing was evaluated or decided')
})

t.test('an accept of a proposal whose branch changes more than its skill does not stand, nor does its merge', async t => {
  const h = await historyRepo(t)
  const ws = new GitWorkspace(h.store)
  const ledger = await h.store.ledger()
  const authority = await loadAuthority(ledger, ws, {at: 'main'})
  const step = h.accepted[0]
  const decision = step.result.decision
  t.ok(authority.counts(decision), 'the real accept stands: its branch changed the skill and knowledge only')
  t.same(authority.input.proposalScopes?.get(step.proposal), [])
  // the same ledger, the proposal's branch as if it had also changed the policy
  const forged = new Authority(ledger, {...authority.input, proposalScopes: new Map([[step.proposal, ['protected path changed: .research/policy.yaml']]])})
  const s = forged.standing(decision)
  t.match(s, {ok: false, class: 'forged_decision', reason: /branch changes more than its skill, which no evaluation judged: protected path changed: \.research\/policy\.yaml/})
})
