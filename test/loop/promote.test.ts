import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {createProposal} from '../../src/loop/proposal.js'
import {evaluateProposal, loadProposal} from '../../src/loop/evaluate.js'
import {promoteProposal} from '../../src/loop/promote.js'
import {git} from '../helpers/repo.js'
import {promotionRepo} from '../helpers/loop-example.js'
import {knowledge, INVENTORY} from '../helpers/loop.js'
import {parseRules, type Rule} from '../../src/knowledge/index.js'
import {mainPolicy} from '../../src/loop/promote.js'

const NOW = () => new Date('2026-11-30T12:00:00.000Z')

const exampleRepo = promotionRepo

/** The rules of the expert skill: together, a change the policy's test can show on validation. */
const EXPERT = parseRules(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/skills/onboarding-expert/SKILL.md'), 'utf8'))

async function proposeAndEval(repo: string, rules: Rule[]) {
  const store = await GitRecordStore.open(repo)
  // the first rule the most confident: it is in the candidate whatever else is
  for (const [i, rule] of rules.entries()) await store.append({kind: 'knowledge', body: knowledge(rule, {confidence: i ? 0.6 : 0.9})}, {lane: 'me', now: NOW})
  const created = (await createProposal(store, new GitWorkspace(store), await store.ledger(), {skill: 'onboarding', lane: 'me', mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, maxRules: 8, now: NOW}))!
  const opts = {agent: 'scripted', scenariosDir: path.join(repo, 'scenarios'), skillsDir: path.join(repo, 'skills'), cwd: repo, repo: store.repo, lane: 'me', seed: 42, repeat: 2, now: NOW}
  const proposal = loadProposal(await store.ledger(), created.proposal)
  await evaluateProposal(store, new GitWorkspace(store), proposal, 'validation', {...opts, policy: (await mainPolicy(new GitWorkspace(store), 'refs/heads/main'))!.policy})
  return {store, created, proposal, opts}
}

t.test('an accepted proposal becomes a merge commit on main with the trailers, and the work tree follows', async t => {
  const repo = await exampleRepo(t)
  const before = (await git(repo, 'rev-parse', 'main')).trim()
  const {store, created, proposal, opts} = await proposeAndEval(repo, [INVENTORY, ...EXPERT.filter(r => r.tool !== INVENTORY.tool)])
  t.equal((await git(repo, 'rev-list', '--count', `${before}..${created.branch}`)).trim(), '1', 'one commit on the proposal branch')
  const changed = (await git(repo, 'diff', '--name-only', before, created.branch)).trim().split('\n').sort()
  t.same(changed.slice(-2), ['skills/onboarding/PURPOSE.yaml', 'skills/onboarding/SKILL.md'])
  t.equal(changed.length - 2, 8, 'the knowledge files of its eight rules')
  t.ok(changed.slice(0, -2).every(f => /^knowledge\/[a-z0-9-]+\.yaml$/.test(f)))
  // a dirty work tree stops the promotion before anything happens
  fs.appendFileSync(path.join(repo, 'skills/onboarding/SKILL.md'), '\nlocal edit\n')
  await t.rejects(promoteProposal(store, new GitWorkspace(store), await store.ledger(), proposal, {...opts, mainRef: 'refs/heads/main'}), {code: 'E_DIRTY_TREE'})
  await git(repo, 'checkout', '--', 'skills/onboarding/SKILL.md')
  const res = await promoteProposal(store, new GitWorkspace(store), await store.ledger(), proposal, {...opts, mainRef: 'refs/heads/main'})
  t.equal(res.verdict, 'accept', res.reasons.join('; '))
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  t.equal(main, res.merge)
  t.equal((await git(repo, 'rev-parse', `${main}^1`)).trim(), before, 'first parent: the old main')
  t.equal((await git(repo, 'rev-parse', `${main}^2`)).trim(), created.head, 'second parent: the proposal')
  const msg = await git(repo, 'log', '-1', '--format=%B', main)
  t.match(msg, new RegExp(`Exp-Promotes: ${created.proposal}`))
  t.match(msg, /Exp-Evidence: (el-[0-9a-f]{24} ?){4}/)
  t.match(msg, /Exp-Policy: 2 sha256:[0-9a-f]{64}/)
  t.match(fs.readFileSync(path.join(repo, 'skills/onboarding/SKILL.md'), 'utf8'), /Before `assign_device`, call `get_inventory`/, 'the work tree was updated')
  t.match(fs.readFileSync(path.join(repo, 'skills/onboarding/PURPOSE.yaml'), 'utf8'), /status: accepted/)
  t.equal((await git(repo, 'status', '--porcelain', '--untracked-files=no')).trim(), '')
  const decision = (await store.ledger()).load<'decision'>(res.decision)
  // the baseline's and the candidate's held-out runs are two looks
  t.match(decision.body, {verdict: 'accept', merge: {commit: main, branch: created.branch}, proposal: created.proposal, holdout_looks: 2})
  const again = await promoteProposal(store, new GitWorkspace(store), await store.ledger(), proposal, {...opts, mainRef: 'refs/heads/main'})
  t.equal(again.decision, res.decision, 'promoting again is a no-op')
  await store.close()
})

t.test('a proposal that does not improve validation is rejected on its own evidence and kept reachable', async t => {
  const repo = await exampleRepo(t)
  // escalating every successful lookup stops all useful work: validation drops
  const {store, created, proposal, opts} = await proposeAndEval(repo, [{kind: 'on_result', tool: 'get_employee', result: 'no_match', calls: ['escalate'], stop: true}])
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  const res = await promoteProposal(store, new GitWorkspace(store), await store.ledger(), proposal, {...opts, mainRef: 'refs/heads/main'})
  t.equal(res.verdict, 'reject')
  t.match(res.reasons.join('\n'), /success improves/)
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'main did not move')
  t.equal((await git(repo, 'rev-parse', `refs/research/rejected/${created.proposal}`)).trim(), created.head, 'the patch is kept')
  await t.rejects(git(repo, 'rev-parse', '--verify', `refs/heads/${created.branch}`), 'the branch is gone from heads')
  const d = (await store.ledger()).load<'decision'>(res.decision)
  t.equal(d.body.holdout_looks, undefined, 'the held-out split was not looked at')
  t.equal(d.body.rejected_ref, `refs/research/rejected/${created.proposal}`)
  await store.close()
})

t.test("another lane's reject does not decide a proposal: one with no evidence, or with evidence the policy accepts, does not stand, and the owner still promotes", async t => {
  const repo = await exampleRepo(t)
  const {store, created, proposal, opts} = await proposeAndEval(repo, [INVENTORY, ...EXPERT.filter(r => r.tool !== INVENTORY.tool)])
  const ledger = await store.ledger()
  const evals = ledger.records({kinds: ['evaluation']}).filter(e => e.body.proposal === created.proposal).map(e => e.id)
  const policy = (await mainPolicy(new GitWorkspace(store), 'refs/heads/main'))!
  const body = (evaluations: string[]) => ({proposal: created.proposal, verdict: 'reject' as const, policy: {version: policy.version, digest: policy.digest, path: policy.path, blob: policy.blob}, evaluations, checks: [{name: 'mallory', passed: false, detail: 'no'}], reasons: ['mallory says no'], regressions: []})
  // written before the owner promotes: with no evidence, then resting on the owner's own (which the policy accepts)
  const none = await store.append({kind: 'decision', body: body([]), cites: [created.proposal]}, {lane: 'mallory'})
  const theirs = await store.append({kind: 'decision', body: body(evals), cites: [created.proposal, ...evals]}, {lane: 'mallory'})
  const {loadAuthority} = await import('../../src/trust/load.js')
  const authority = await loadAuthority(await store.ledger(), new GitWorkspace(store), {at: (await git(repo, 'rev-parse', 'main')).trim()})
  t.match(authority.standing(none.id), {ok: false, class: 'forged_decision', reason: /a reject needs evidence too/})
  t.match(authority.standing(theirs.id), {ok: false, class: 'forged_decision', reason: /the policy accepts its evidence/})
  const res = await promoteProposal(store, new GitWorkspace(store), await store.ledger(), proposal, {...opts, mainRef: 'refs/heads/main'})
  t.equal(res.verdict, 'accept', 'the owner decides on the evidence, not on the reject written first')
  t.not(res.decision, none.id)
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), res.merge)
  // and a reject that does stand (main moved from the base: true now, after the merge) is outweighed by the accept
  const moved = {...body(evals), checks: [{name: 'based on the current main', passed: false, detail: 'main moved'}]}
  const late = await store.append({kind: 'decision', body: moved, cites: [created.proposal, ...evals]}, {lane: 'mallory'})
  const after = await loadAuthority(await store.ledger(), new GitWorkspace(store), {at: res.merge})
  t.ok(after.counts(late.id), 'it stands on its own')
  t.match(after.problems().find(p => p.id === late.id), {class: 'conflicting_decision', reason: new RegExp(`decided accept by ${res.decision}`)})
  t.notOk(after.problems().some(p => p.id === res.decision), 'the accept is not the one named')
  await store.close()
})

// Found by an attack sweep: another lane's standing accept was the answer of any promote of
// the proposal. One made in another clone and never pushed (only the lane arrives with a
// fetch) had this promote print ACCEPT and a merge commit this repository does not have, and
// merge nothing. An accept decides here only when its merge is on this main.
t.test("another lane's accept whose merge is not on this main does not decide: the owner's promote merges", async t => {
  const repo = await exampleRepo(t)
  const {store, proposal, opts} = await proposeAndEval(repo, [INVENTORY, ...EXPERT.filter(r => r.tool !== INVENTORY.tool)])
  await store.close()
  const other = path.join(path.dirname(repo), `${path.basename(repo)}-other`)
  fs.cpSync(repo, other, {recursive: true})
  t.teardown(() => fs.rmSync(other, {recursive: true, force: true}))
  const theirs = await GitRecordStore.open(other)
  const elsewhere = await promoteProposal(theirs, new GitWorkspace(theirs), await theirs.ledger(), proposal, {...opts, cwd: other, scenariosDir: path.join(other, 'scenarios'), skillsDir: path.join(other, 'skills'), repo: theirs.repo, lane: 'evil', mainRef: 'refs/heads/main'})
  await theirs.close()
  t.equal(elsewhere.verdict, 'accept')
  // only the lane comes over
  await git(repo, 'fetch', '-q', other, 'refs/research/lanes/evil:refs/research/lanes/evil')
  const before = (await git(repo, 'rev-parse', 'main')).trim()
  const mine = await GitRecordStore.open(repo)
  const res = await promoteProposal(mine, new GitWorkspace(mine), await mine.ledger(), proposal, {...opts, repo: mine.repo, mainRef: 'refs/heads/main'})
  t.equal(res.verdict, 'accept')
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  t.not(main, before, 'main moved: the promotion merged here')
  t.equal(res.merge, main, 'and the merge it names is this main')
  await mine.close()
})
