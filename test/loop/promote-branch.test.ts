import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore, discoverRepo} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {createProposal} from '../../src/loop/proposal.js'
import {evaluateProposal, loadProposal} from '../../src/loop/evaluate.js'
import {mainPolicy, promoteProposal} from '../../src/loop/promote.js'
import {initResearch} from '../../src/research/init.js'
import {addExample} from '../../src/research/example.js'
import {makeRepo, git} from '../helpers/repo.js'
import {knowledge} from '../helpers/loop.js'
import {BAD} from '../helpers/promotions.js'

// Found by a review of `exp promote`: a reject deleted the proposal's branch whatever it held
// (`update-ref -d` with no old value). A hand edit committed on the branch was then reachable
// from nothing (refs/research/rejected/<id> keeps the proposal's own commit), its reflog gone
// with it; a branch checked out in a work tree left it on an unborn branch.

const NOW = () => new Date('2026-11-30T12:00:00.000Z')

/** A proposal the policy rejects on its evidence (escalating every lookup with no match), evaluated. */
async function rejectable(t: Parameters<typeof makeRepo>[0]) {
  const repo = await makeRepo(t)
  await initResearch(discoverRepo(repo))
  await addExample(discoverRepo(repo), 'onboarding')
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  await store.append({kind: 'knowledge', body: knowledge(BAD)}, {lane: 'me', now: NOW})
  const created = (await createProposal(store, ws, await store.ledger(), {skill: 'onboarding', lane: 'me', mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, now: NOW}))!
  const proposal = loadProposal(await store.ledger(), created.proposal)
  const opts = {agent: 'scripted', scenariosDir: path.join(repo, 'scenarios'), skillsDir: path.join(repo, 'skills'), cwd: repo, repo: store.repo, lane: 'me', seed: 42, repeat: 2, now: NOW}
  await evaluateProposal(store, ws, proposal, 'validation', {...opts, policy: (await mainPolicy(ws, 'refs/heads/main'))!.policy})
  const promote = async () => promoteProposal(store, ws, await store.ledger(), proposal, {...opts, mainRef: 'refs/heads/main'})
  return {repo, created, promote}
}

t.test('a reject keeps a proposal branch that has a commit of its own, and says so', async t => {
  const {repo, created, promote} = await rejectable(t)
  await git(repo, 'switch', '-q', created.branch)
  fs.appendFileSync(path.join(repo, 'skills/onboarding/SKILL.md'), '- my note\n')
  await git(repo, 'commit', '-qam', 'precious hand edit')
  const edited = (await git(repo, 'rev-parse', 'HEAD')).trim()
  await git(repo, 'switch', '-q', 'main')
  const res = await promote()
  t.equal(res.verdict, 'reject')
  t.equal((await git(repo, 'rev-parse', `refs/research/rejected/${created.proposal}`)).trim(), created.head, "the proposal's commit is kept as rejected")
  t.equal((await git(repo, 'rev-parse', `refs/heads/${created.branch}`)).trim(), edited, 'the branch, with the hand edit, is kept')
  t.match(res.kept_branch, new RegExp(`${created.branch} is kept: it is at ${edited.slice(0, 12)}, not at the proposal's commit ${created.head.slice(0, 12)}`))
})

t.test('a reject keeps a proposal branch a work tree has checked out, and deletes one that is neither', async t => {
  const {repo, created, promote} = await rejectable(t)
  await git(repo, 'switch', '-q', created.branch)
  const res = await promote()
  t.equal(res.verdict, 'reject')
  t.equal((await git(repo, 'rev-parse', 'HEAD')).trim(), created.head, 'the work tree is still on its branch, not on an unborn one')
  t.equal((await git(repo, 'symbolic-ref', 'HEAD')).trim(), `refs/heads/${created.branch}`)
  t.match(res.kept_branch, /is kept: it is checked out in /)
  // the branch a work tree is not on, at the proposal's commit: deleted, the commit kept as rejected
  const other = await rejectable(t)
  const gone = await other.promote()
  t.equal(gone.kept_branch, undefined)
  await t.rejects(git(other.repo, 'rev-parse', '--verify', `refs/heads/${other.created.branch}`), 'deleted')
  t.equal((await git(other.repo, 'rev-parse', `refs/research/rejected/${other.created.proposal}`)).trim(), other.created.head)
})
