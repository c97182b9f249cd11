import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {git, makeRepo, tempDir} from '../helpers/repo.js'
import {knowledge, INVENTORY} from '../helpers/loop.js'
import {V1_POLICY} from '../helpers/promotions.js'
import {NOW} from '../helpers/trust.js'
import {GitRecordStore, discoverRepo} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {initResearch} from '../../src/research/init.js'
import {addExample} from '../../src/research/example.js'
import {createProposal} from '../../src/loop/proposal.js'
import {evaluateProposal, loadProposal} from '../../src/loop/evaluate.js'
import {promoteProposal} from '../../src/loop/promote.js'
import {hashObject} from '../../src/records/object-id.js'
import type {Workspace} from '../../src/workspace/port.js'

// `--scenarios DIR` is for experiments: what promotes rests on the scenarios committed on main
// (docs/trust.md, "Evidence is re-derived"). Before, a promoter could evaluate on a folder of
// their own, held-out split included, and the accept stood in every clone, where nobody could
// replay it; `exp fsck --replay` said every episode was replayed.

/** The example under a version 1 policy (one rule promotes), a proposal of one rule, and a folder of the promoter's own. */
async function setup(t: Parameters<typeof makeRepo>[0]) {
  const repo = await makeRepo(t)
  await initResearch(discoverRepo(repo))
  await addExample(discoverRepo(repo), 'onboarding')
  fs.writeFileSync(path.join(repo, '.research/policy.yaml'), V1_POLICY)
  await git(repo, 'commit', '-qam', 'a version 1 policy')
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  await store.append({kind: 'knowledge', body: knowledge(INVENTORY), cites: []}, {lane: 'me', now: NOW})
  const created = (await createProposal(store, new GitWorkspace(store), await store.ledger(), {skill: 'onboarding', lane: 'me', mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, maxRules: 1, now: NOW}))!
  // the plain train and validation files, and a "held-out" split of the promoter's making: copies of validation
  const mine = tempDir(t)
  for (const f of fs.readdirSync(path.join(repo, 'scenarios')).filter(f => f.endsWith('.yaml'))) {
    const text = fs.readFileSync(path.join(repo, 'scenarios', f), 'utf8')
    fs.writeFileSync(path.join(mine, f), text)
    if (f.startsWith('val-')) fs.writeFileSync(path.join(mine, f.replace(/^val-/, 'hold-')), text.replace(/^id: val-/m, 'id: hold-').replace(/^split: validation$/m, 'split: holdout'))
  }
  const opts = {agent: 'scripted', scenariosDir: mine, skillsDir: path.join(repo, 'skills'), cwd: repo, repo: store.repo, lane: 'me', seed: 42, repeat: 1, now: NOW}
  const proposal = loadProposal(await store.ledger(), created.proposal)
  await evaluateProposal(store, new GitWorkspace(store), proposal, 'validation', opts)
  return {repo, store, mine, proposal, opts, tree: (await git(repo, 'rev-parse', 'main:scenarios')).trim()}
}

t.test('exp promote refuses --scenarios DIR, and evaluations on such a folder never promote; fsck --replay counts what it could not replay', async t => {
  const s = await setup(t)
  const main = (await git(s.repo, 'rev-parse', 'main')).trim()
  const decisions = async () => (await expJson<unknown[]>(['ledger', '--kind', 'decision', '--json'], {cwd: s.repo})).length

  const refused = await exp(['promote', s.proposal.id, '--scenarios', s.mine, '--lane', 'me'], {cwd: s.repo})
  t.not(refused.code, 0, 'refused')
  t.match(refused.stderr, new RegExp(`judges on the scenarios committed on main \\(main:scenarios, tree ${s.tree.slice(0, 12)}\\); the folder .* is tree [0-9a-f]{12}: nothing was run or recorded`))
  t.match(refused.stderr, /hint: drop --scenarios/)
  t.equal(await decisions(), 0, 'no decision recorded')
  t.equal((await expJson<{body: {split: string}}[]>(['ledger', '--kind', 'manifest', '--json'], {cwd: s.repo})).filter(m => m.body.split === 'holdout').length, 0, 'no held-out episode run')
  t.equal((await git(s.repo, 'rev-parse', 'main')).trim(), main, 'main did not move')

  // on main's scenarios, the evidence made on the folder does not count: the manifest and its tree are named
  const plain = await exp(['promote', s.proposal.id, '--lane', 'me'], {cwd: s.repo})
  t.not(plain.code, 0)
  t.match(plain.stderr, new RegExp(`no validation evaluation of ${s.proposal.id} stands: el-[0-9a-f]+: manifest mf-[0-9a-f]+ \\(validation\\) pins scenarios tree [0-9a-f]{12}, not the tree of scenarios/ at the proposal's base [0-9a-f]{12} \\(${s.tree.slice(0, 12)}\\)`))
  t.equal(await decisions(), 0)

  // replay: the folder's episodes are counted as not replayed, with why, not passed off as replayed
  const fsck = await exp(['fsck', '--replay'], {cwd: s.repo})
  t.equal(fsck.code, 0, 'an experiment on a folder of its own is no problem in itself')
  t.match(fsck.stderr, /warning: \d+ episodes of manifest mf-[0-9a-f]+ \(validation\) not replayed: its dataset tree [0-9a-f]{12} is not in this repository/)
  t.match(fsck.stderr, /; 0 of \d+ episodes replayed, \d+ could not be \(above\)/)
  t.notMatch(fsck.stderr, /every episode replayed/)
  const json = await expJson<{evidence: {replayed: boolean; replay: {episodes: number; replayed: number; not_replayed: number; groups: {manifest: string; reason: string}[]}}}>(['fsck', '--replay'], {cwd: s.repo})
  t.equal(json.evidence.replayed, false)
  t.equal(json.evidence.replay.replayed, 0)
  t.equal(json.evidence.replay.not_replayed, json.evidence.replay.episodes)
  t.equal(json.evidence.replay.groups.length, 2, 'one group per manifest (baseline and candidate)')

  // evaluated again on main's scenarios: replayed, and it promotes
  await evaluateProposal(s.store, new GitWorkspace(s.store), s.proposal, 'validation', {...s.opts, scenariosDir: path.join(s.repo, 'scenarios')})
  const ok = await expJson<{verdict: string; ignored?: {id: string}[]}>(['promote', s.proposal.id, '--lane', 'me'], {cwd: s.repo})
  t.equal(ok.verdict, 'accept')
  const after = await expJson<{evidence: {replay: {replayed: number; groups: unknown[]}}}>(['fsck', '--replay'], {cwd: s.repo})
  t.ok(after.evidence.replay.replayed > 0, 'the episodes on main\'s scenarios were replayed, and counted')
  t.equal(after.evidence.replay.groups.length, 2, 'the folder\'s are still named')
})

t.test('an accept decided on evaluations of another folder (as an older exp recorded it) does not stand, and its merge is unverified', async t => {
  const s = await setup(t)
  // an older exp: promote read main's scenarios from the folder it was given (here: a
  // workspace that answers scenarios/ with the promoter's folder)
  const real = new GitWorkspace(s.store)
  const files = fs.readdirSync(s.mine).map(name => {
    const content = fs.readFileSync(path.join(s.mine, name))
    return {path: name, blob: hashObject('blob', content), content}
  })
  const older = new Proxy(real, {
    get(target, prop) {
      if (prop === 'listTree') return async (c: string, dir?: string) => (dir === 'scenarios' ? files.map(({path: p, blob}) => ({path: p, blob})) : target.listTree(c, dir))
      if (prop === 'listFiles') return async (c: string, dir?: string, o?: {max?: number}) => (dir === 'scenarios' ? files : target.listFiles(c, dir, o))
      const v = Reflect.get(target, prop) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  }) as Workspace
  const res = await promoteProposal(s.store, older, await s.store.ledger(), s.proposal, {...s.opts, mainRef: 'refs/heads/main'})
  t.equal(res.verdict, 'accept', res.reasons.join('; '))

  const fsck = await exp(['fsck', '--json'], {cwd: s.repo})
  t.equal(fsck.code, 5, 'fsck fails')
  const problems = (JSON.parse(fsck.stdout) as {error: {data: {problems: {class?: string; id?: string; message: string}[]}}}).error.data.problems
  t.match(problems.find(p => p.id === res.decision), {class: 'forged_decision', message: new RegExp(`manifest mf-[0-9a-f]+ \\((validation|holdout)\\) pins scenarios tree [0-9a-f]{12}, not the tree of scenarios/ at the proposal's base [0-9a-f]{12} \\(${s.tree.slice(0, 12)}\\): it ran on another folder of scenarios`)}, 'the decision does not stand, naming the manifest and the trees')
  t.match(problems.find(p => p.class === 'unverified_promotion'), {id: s.proposal.id}, 'its merge is no promotion')
  const prov = await exp(['provenance', 'onboarding'], {cwd: s.repo})
  t.match(prov.stdout, /v2 {2}UNVERIFIED merge/)
  t.notMatch(prov.stdout, /promoted by merge/)
})
