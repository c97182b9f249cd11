// A runnable tutorial: the whole loop, one command at a time, as a new user types it.
// Read it top to bottom; every step says what it shows.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from './helpers/cli.js'
import {expBatch} from './helpers/cli-batch.js'
import {makeRepo, git, tempDir} from './helpers/repo.js'
import {builtinScenarios} from './helpers/scenarios.js'

t.test('tutorial: from a fresh repository to a promoted, explained skill', async t => {
  // 1. any git repository; `exp init --example onboarding` brings the built-in benchmark
  const repo = await makeRepo(t, {empty: true})
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  t.ok(fs.existsSync(path.join(repo, 'skills/onboarding/SKILL.md')))

  // 2. run the agent on the training split: a manifest, a trace and a verification per episode
  const train = await expJson<{manifest: string; success_rate: number; total: number}>(['run', 'train', '--repeat', '3', '--lane', 'tutorial'], {cwd: repo})
  t.equal(train.total, (await builtinScenarios()).filter(s => s.split === 'train').length * 3)

  // 3. mine the training traces: evidence with the runs behind it, then knowledge
  const mined = await expJson<{evidence: string[]; knowledge: string[]}>(['mine', '--manifest', train.manifest, '--lane', 'tutorial'], {cwd: repo})
  t.ok(mined.knowledge.length > 0, `${mined.knowledge.length} knowledge records`)

  // 4. propose a patch of the skill: recall, hypothesis, a branch with one commit, a proposal record
  const prop = await expJson<{proposal: string; branch: string}>(['propose', 'onboarding', '--lane', 'tutorial'], {cwd: repo})
  t.match(await git(repo, 'diff', 'main', prop.branch, '--', 'skills/onboarding/SKILL.md'), /^\+\d+\. (Before|If|Never) `/m, 'the diff adds rule lines a reviewer can read')

  // 5. evaluate the candidate against the current skill on validation, same seeds
  const ev = await expJson<{comparison: {wins: number; losses: number}}>(['eval', prop.proposal, '--lane', 'tutorial'], {cwd: repo})
  t.ok(ev.comparison.wins >= ev.comparison.losses)

  // 6. promote: the policy decides; accept is a merge commit with trailers on main
  const dec = await expJson<{verdict: string; merge?: string}>(['promote', prop.proposal, '--lane', 'tutorial'], {cwd: repo})
  t.equal(dec.verdict, 'accept')
  t.match(await git(repo, 'log', '-1', '--format=%B', 'main'), new RegExp(`Exp-Promotes: ${prop.proposal}`))

  // 7. explain it: provenance back to the failing traces, blame per line, the report
  // 8. everything is in git: fsck checks every record on every lane
  // (these read commands run one after the other in one process: test/helpers/cli-batch.ts)
  const out = tempDir(t)
  const [provenance, blame, report, fsck] = await expBatch([['provenance', 'onboarding@2'], ['blame', 'onboarding'], ['report', '--out', out], ['fsck']].map(args => ({args, cwd: repo})))
  t.match(provenance!.stdout, /failed train trace tr-[0-9a-f]{24}/)
  t.match(blame!.stdout, new RegExp(`v2 merge [0-9a-f]{12} ${prop.proposal} kn-`))
  t.equal(report!.code, 0)
  t.ok(fs.existsSync(path.join(out, 'report.html')))
  t.equal(fsck!.code, 0)
})

t.test('exp demo makes its own repository and never writes into the one it starts from', async t => {
  const here = await makeRepo(t)
  const before = await git(here, 'status', '--porcelain', '--ignored')
  const dir = path.join(tempDir(t), 'demo')
  // one iteration (not the default 10): what is checked is where the demo writes, not how far it gets
  const r = await expJson<{dir: string; evolve: {iterations: unknown[]; holdout_before: number}; report: string[]}>(['demo', '--dir', dir, '-n', '1'], {cwd: here})
  t.equal(r.dir, dir)
  t.equal(r.evolve.iterations.length, 1, '-n iterations, not the default')
  t.ok(r.report.some(f => f.endsWith('report.html')))
  t.equal(await git(here, 'status', '--porcelain', '--ignored'), before, 'the starting repository is untouched')
  t.equal((await git(here, 'for-each-ref', 'refs/research')).trim(), '')
  // (a folder an earlier demo made is finished instead: test/cli/git-setups.test.ts)
  const other = path.join(tempDir(t), 'notes')
  fs.mkdirSync(other)
  fs.writeFileSync(path.join(other, 'todo.txt'), 'mine\n')
  t.equal((await exp(['demo', '--dir', other], {cwd: here})).code, 2, 'a non-empty folder no demo made is refused')
  t.equal(fs.readFileSync(path.join(other, 'todo.txt'), 'utf8'), 'mine\n')
})
