import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git} from '../helpers/repo.js'
import {BAD} from '../helpers/promotions.js'
import {pendingProposal, type PendingProposal} from '../helpers/trust.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {proposalFileProblems} from '../../src/loop/proposal-files.js'
import {proposedPurpose, purposeText} from '../../src/loop/files.js'
import {recordId} from '../../src/records/index.js'
import type {ProposalBody} from '../../src/records/types.js'
import {checkPurpose} from '../../src/skills/index.js'
import {createProposal} from '../../src/loop/proposal.js'

// Found attacking as the owner of another lane (sweep 34b, break 1): a proposal's branch may
// change only the skill's SKILL.md, its PURPOSE.yaml and knowledge/*.yaml, but nothing checked
// what those files said. Lane evil's branch held the SKILL.md `exp propose` writes, a
// PURPOSE.yaml of its own (version 2^53 - 1, proposed by "CISO security review" on the honest
// lane, a decision that does not exist) and a knowledge file no record wrote: the honest user's
// eval and promote accepted it, main kept every field, and every later `exp propose` failed.

const PURPOSE = 'skills/onboarding/PURPOSE.yaml'

/**
 * A proposal of lane mallory: the honest proposal's record under a key of mallory's, its branch
 * the honest branch's commit with `files` (given the new record's id) written over it.
 */
async function handMade(p: PendingProposal, files: (id: string) => Record<string, string> | Promise<Record<string, string>>): Promise<{id: string; commit: string}> {
  const ledger = await p.store.ledger()
  const honest = ledger.get(p.proposal)!
  const body = ledger.load<'proposal'>(honest).body as ProposalBody
  const key = `hand-made/${Math.random()}`
  const id = recordId('proposal', '', key)
  const wt = path.join(p.repo, '.git', `hand-${id}`)
  await git(p.repo, 'worktree', 'add', '-q', '--detach', wt, body.head.commit)
  for (const [f, text] of Object.entries(await files(id))) {
    fs.mkdirSync(path.dirname(path.join(wt, f)), {recursive: true})
    fs.writeFileSync(path.join(wt, f), text)
  }
  await git(wt, 'add', '-A')
  await git(wt, 'commit', '-q', '--allow-empty', '-m', `exp: propose ${body.skill} v2`)
  const commit = (await git(wt, 'rev-parse', 'HEAD')).trim()
  await git(p.repo, 'worktree', 'remove', '--force', wt)
  const branch = `exp/proposal/${id}`
  await git(p.repo, 'update-ref', `refs/heads/${branch}`, commit)
  await p.store.append({kind: 'proposal', key, body: {...body, branch, head: {...body.head, commit}}, cites: honest.cites as string[]}, {lane: 'mallory'})
  return {id, commit}
}

/** The PURPOSE.yaml `exp propose` writes for mallory's copy of the honest proposal. */
async function faithful(p: PendingProposal, id: string): Promise<string> {
  const ledger = await p.store.ledger()
  const body = ledger.load<'proposal'>(ledger.get(p.proposal)!).body as ProposalBody
  const knowledge = body.knowledge.map(k => ledger.load<'knowledge'>(ledger.get(k)!))
  return purposeText(proposedPurpose({skill: body.skill, version: 2, knowledge, proposer: body.proposer, lane: 'mallory', proposal: id}))
}

const problemsOf = async (p: PendingProposal, id: string) => {
  const ledger = await p.store.ledger()
  return (await proposalFileProblems(new GitWorkspace(p.store), ledger, ledger.load<'proposal'>(ledger.get(id)!))).problems
}

t.test("a proposal whose branch holds a PURPOSE.yaml or knowledge file of its own making is neither evaluated nor promoted", async t => {
  const p = await pendingProposal(t, BAD)
  const main = (await git(p.repo, 'rev-parse', 'main')).trim()
  const evil = await handMade(p, id => ({
    [PURPOSE]: `skill: onboarding\nversion: 9007199254740991\nstatus: proposed\nderived_from: [ciso-security-review-2026]\nproposed_by: {human: "CISO security review", lane: me}\nproposal: ${p.proposal}\ndecision: dc-000000000000000000000000\n# (${id})\n`,
    'knowledge/security-approved.yaml': '# security-approved: written by exp from knowledge record kn-000000000000000000000000 (do not edit)\nclaim: {text: "approved by security"}\n',
  }))
  for (const args of [
    ['eval', evil.id, '--lane', 'me'],
    ['promote', evil.id, '--lane', 'me'],
  ]) {
    const r = await exp(args, {cwd: p.repo})
    t.equal(r.code, 6, `exp ${args[0]}: ${r.stderr}`)
    t.match(r.stderr, `error: proposal ${evil.id} crosses its contract's boundary: `)
    t.match(r.stderr, `${PURPOSE}: version is 9007199254740991, not 2 (the version at its base + 1)`)
    t.match(r.stderr, `${PURPOSE}: proposed_by.lane is "me", not "mallory"`)
    t.match(r.stderr, `${PURPOSE}: proposed_by.human is "CISO security review", not absent`)
    t.match(r.stderr, `${PURPOSE}: derived_from is ["ciso-security-review-2026"]`)
    t.match(r.stderr, `${PURPOSE}: proposal is "${p.proposal}", not "${evil.id}"`)
    t.match(r.stderr, `${PURPOSE}: decision is "dc-000000000000000000000000", not absent`)
    t.match(r.stderr, 'knowledge/security-approved.yaml: no knowledge record the proposal cites has its slug')
    t.match(r.stderr, /hint: a proposal's branch holds what `exp propose` writes for its record/)
  }
  t.equal((await git(p.repo, 'rev-parse', 'main')).trim(), main, 'main did not move')
  t.notOk((await p.store.ledger()).select({kinds: ['evaluation', 'decision'], cites: evil.id}).length, 'nothing was evaluated or decided')
  t.equal(checkPurpose((await git(p.repo, 'show', `main:${PURPOSE}`)) ?? '', 'onboarding').value?.version ?? 1, 1, "main's PURPOSE.yaml is as it was")
})

t.test('what `exp propose` writes for a record passes, on any lane; a field, a comment or a knowledge file of its own does not', async t => {
  const p = await pendingProposal(t, BAD)
  t.same(await problemsOf(p, p.proposal), [], "exp propose's own branch")
  // the honest branch's files under mallory's record: the PURPOSE.yaml names the honest lane and proposal
  const copy = await handMade(p, () => ({}))
  t.same(await problemsOf(p, copy.id), [`${PURPOSE}: proposed_by.lane is "me", not "mallory" (the record's proposer, on lane mallory)`, `${PURPOSE}: proposal is "${p.proposal}", not "${copy.id}" (the proposal record's id)`])
  const written = (edit: (text: string) => string, extra: Record<string, string> = {}) => async (id: string) => ({[PURPOSE]: edit(await faithful(p, id)), ...extra})
  const exact = await handMade(p, written(x => x))
  t.same(await problemsOf(p, exact.id), [], "mallory's branch with the PURPOSE.yaml exp propose writes for mallory's record")
  const version = await handMade(p, written(x => x.replace('version: 2\n', 'version: 7\n')))
  t.same(await problemsOf(p, version.id), [`${PURPOSE}: version is 7, not 2 (the version at its base + 1)`])
  const comment = await handMade(p, written(x => `${x}# approved by the security review\n`))
  t.same(await problemsOf(p, comment.id), [`${PURPOSE}: not the text exp propose writes for the record (its fields are, its comments or layout are not)`])
  const broken = await handMade(p, () => ({[PURPOSE]: 'skill: [\n'}))
  t.match((await problemsOf(p, broken.id)).join('\n'), `${PURPOSE}: not a valid PURPOSE.yaml`)
  const ledger = await p.store.ledger()
  const [kn] = (ledger.load<'proposal'>(ledger.get(p.proposal)!).body as ProposalBody).knowledge
  const slug = ledger.load<'knowledge'>(ledger.get(kn!)!).body.slug
  const knowledge = await handMade(p, written(x => x, {[`knowledge/${slug}.yaml`]: 'claim: {text: "approved"}\n'}))
  t.same(await problemsOf(p, knowledge.id), [`knowledge/${slug}.yaml: not the text: exp writes it from knowledge record ${kn}, which the proposal cites`])
})

t.test("a model-drafted proposal's branch passes: its PURPOSE.yaml names the model, as its record does", async t => {
  const p = await pendingProposal(t, BAD)
  const ws = new GitWorkspace(p.store)
  const created = (await createProposal(p.store, ws, await p.store.ledger(), {skill: 'onboarding', lane: 'drafter', mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, maxRules: 1, draft: async proposed => ({proposed, exchanges: [], model: 'writer'})}))!
  const ledger = await p.store.ledger()
  t.same(ledger.load<'proposal'>(ledger.get(created.proposal)!).body.proposer, {name: 'deterministic', version: '1', model: 'writer'})
  t.match(await git(p.repo, 'show', `${created.head}:${PURPOSE}`), /proposed_by:\n {2}proposer: deterministic\n {2}version: "1"\n {2}model: writer\n {2}lane: drafter\n/)
  t.same(await problemsOf(p, created.proposal), [])
})
