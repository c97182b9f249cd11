import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {createProposal} from '../../src/loop/proposal.js'
import {evaluateProposal, loadProposal} from '../../src/loop/evaluate.js'
import {mainPolicy, promoteProposal} from '../../src/loop/promote.js'
import {loadAuthority} from '../../src/trust/load.js'
import {runEvaluation} from '../../src/evals/runner/run.js'
import {compareRuns} from '../../src/evals/compare.js'
import {parseRules} from '../../src/knowledge/index.js'
import {makeRepo, git} from '../helpers/repo.js'
import {promotionRepo} from '../helpers/loop-example.js'
import {knowledge, INVENTORY} from '../helpers/loop.js'
import {BAD} from '../helpers/promotions.js'

// Found by a review of `exp promote`: it took a proposal's validation evidence by the
// `proposal` field of an evaluation, which any lane writes. A copy of another proposal's
// evaluation relabelled, or the real candidate paired with a weak baseline of a lane's choosing,
// was promoted (merged into main) with no run of the proposal's skill against its base; only
// `exp fsck` said so afterwards. promote now takes only evaluations of the proposal's head skill
// against the skill it was made from, as a decision needs to stand (src/trust/decision.ts).

const NOW = () => new Date('2026-11-30T12:00:00.000Z')
const EXPERT = parseRules(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/skills/onboarding-expert/SKILL.md'), 'utf8'))

async function setup(t: Parameters<typeof makeRepo>[0]) {
  const repo = await promotionRepo(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  for (const [i, rule] of [INVENTORY, ...EXPERT.filter(r => r.tool !== INVENTORY.tool)].entries()) await store.append({kind: 'knowledge', body: knowledge(rule, {confidence: i ? 0.6 : 0.9})}, {lane: 'me', now: NOW})
  const opts = {agent: 'scripted', scenariosDir: path.join(repo, 'scenarios'), skillsDir: path.join(repo, 'skills'), cwd: repo, repo: store.repo, lane: 'me', seed: 42, repeat: 2, now: NOW}
  const policyOnMain = (await mainPolicy(ws, 'refs/heads/main'))!
  const propose = async (maxRules: number) => {
    const c = (await createProposal(store, ws, await store.ledger(), {skill: 'onboarding', lane: 'me', mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, maxRules, now: NOW}))!
    return loadProposal(await store.ledger(), c.proposal)
  }
  return {repo, store, ws, opts, policy: policyOnMain, propose}
}

t.test("promote does not take another proposal's evaluation relabelled: nothing is merged", async t => {
  const {repo, store, ws, opts, policy, propose} = await setup(t)
  const p1 = await propose(8)
  await evaluateProposal(store, ws, p1, 'validation', {...opts, policy: policy.policy})
  const p2 = await propose(1)
  t.not(p2.id, p1.id)
  t.not(p2.body.head.skill_blob, p1.body.head.skill_blob)
  const ledger = await store.ledger()
  const copy = ledger.records({kinds: ['evaluation']}).find(e => e.body.proposal === p1.id && e.body.role === 'candidate')!
  const forged = await store.append({kind: 'evaluation', body: {...copy.body, proposal: p2.id}, cites: copy.cites}, {lane: 'mallory'})
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  await t.rejects(promoteProposal(store, ws, await store.ledger(), p2, {...opts, mainRef: 'refs/heads/main'}), {code: 'E_UNTRUSTED', message: new RegExp(`${forged.id}: it is not an evaluation of ${p2.id}: its candidate is onboarding at blob ${p1.body.head.skill_blob.slice(0, 12)}`)})
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'main did not move')
  t.equal((await store.ledger()).select({kinds: ['decision']}).length, 0, 'nothing decided')
  // its own evaluation, once made, is what promote decides on
  await evaluateProposal(store, ws, p2, 'validation', {...opts, policy: policy.policy})
  const res = await promoteProposal(store, ws, await store.ledger(), p2, {...opts, mainRef: 'refs/heads/main'})
  const d = (await store.ledger()).load<'decision'>(res.decision).body
  t.notOk(d.evaluations.includes(forged.id), 'the decision rests on its own evaluation')
})

t.test('promote does not take the real candidate judged against a weak baseline; a decision on held-out runs of other skills does not stand', async t => {
  const {repo, store, ws, opts, policy, propose} = await setup(t)
  const p = await propose(8)
  // a skill that escalates on every lookup: anything beats it
  const weakText = `${(await git(repo, 'show', `${p.body.base.commit}:skills/onboarding/SKILL.md`)).trimEnd()}\n\n## Procedure\n\n1. ${(await import('../../src/knowledge/index.js')).renderRule(BAD)}\n`
  const weak = await ws.commitFiles({base: p.body.base.commit, files: [{path: 'skills/onboarding/SKILL.md', content: Buffer.from(weakText)}], message: 'a weak skill\n'})
  const run = {...opts, workspace: ws, split: 'validation' as const, repeat: 6, proposal: p.id, lane: 'mallory'}
  const baseline = await runEvaluation(store, {...run, skill: `${weak}:skills/onboarding/SKILL.md`, role: 'baseline'})
  const candidate = await runEvaluation(store, {...run, skill: `${p.body.head.commit}:skills/onboarding/SKILL.md`, role: 'candidate', decorate: (full, verified) => ({...full, comparison: compareRuns(baseline.evaluation, baseline.verified, verified)})})
  t.ok(candidate.success_rate > baseline.success_rate, 'the candidate beats the weak baseline')
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  await t.rejects(promoteProposal(store, ws, await store.ledger(), p, {...opts, mainRef: 'refs/heads/main'}), {code: 'E_UNTRUSTED', message: /its baseline is onboarding at blob [0-9a-f]{12}, not the skill the proposal was made from/})
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'main did not move')

  // an honest promotion, then a copy of its accept whose held-out pair is two runs of the base skill
  await evaluateProposal(store, ws, p, 'validation', {...opts, policy: policy.policy})
  const res = await promoteProposal(store, ws, await store.ledger(), p, {...opts, mainRef: 'refs/heads/main'})
  t.equal(res.verdict, 'accept', res.reasons.join('; '))
  const honest = (await store.ledger()).load<'decision'>(res.decision)
  const held = {...opts, workspace: ws, split: 'holdout' as const, proposal: p.id, lane: 'mallory', skill: `${p.body.base.commit}:skills/onboarding/SKILL.md`}
  const hb = await runEvaluation(store, {...held, role: 'baseline'})
  const hc = await runEvaluation(store, {...held, role: 'candidate'})
  const evaluations = [...honest.body.evaluations.slice(0, 2), hc.evaluation, hb.evaluation]
  const copy = await store.append({kind: 'decision', body: {...honest.body, evaluations, reasons: ['a copy']}, cites: [p.id, ...evaluations]}, {lane: 'mallory'})
  const authority = await loadAuthority(await store.ledger(), ws, {at: res.merge!})
  t.ok(authority.counts(res.decision), 'the honest accept stands')
  // (the held-out runs name the proposal and judge another skill: they do not stand themselves,
  // test/trust/relabelled-evaluation.test.ts, so neither does a decision that rests on them)
  t.match(authority.standing(copy.id), {ok: false, class: 'forged_decision', reason: /not an evaluation of .*: its candidate is onboarding at blob/})
  t.match(authority.standing(hc.evaluation), {ok: false, class: 'forged_evaluation'})
})
