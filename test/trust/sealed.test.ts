import t, {type Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {parse} from 'yaml'
import {exp, expJson, ROOT} from '../helpers/cli.js'
import {GIT_ENV, git, makeRepo, tempDir, workingFiles} from '../helpers/repo.js'
import {GitRecordStore} from '../../src/store/index.js'
import {onboardingOnCommit} from '../helpers/gate-fixtures.js'

const HELD = fs.readdirSync(path.join(ROOT, 'scenarios')).filter(f => f.startsWith('hold-'))
const TASKS = HELD.map(f => (parse(fs.readFileSync(path.join(ROOT, 'scenarios', f), 'utf8')) as {task: string}).task.trim())

type Run = {success_rate: number; passed: number; total: number; evaluation: string; private_evaluation?: string; body: {per_scenario: {scenario: string; passes: number}[]; sealed?: unknown}}

async function sealedRepo(t: Test): Promise<string> {
  // (exp init --example onboarding in a repository makeRepo made: run once, copied per test)
  const {repo, init: r} = await onboardingOnCommit(t)
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, new RegExp(`sealed {2}${HELD.length} evaluator-only file\\(s\\) into scenarios/holdout.sealed`))
  t.match(r.stdout, /EXP_HOLDOUT_KEY/, 'it says how to store the key as a CI secret')
  return repo
}

t.test('with the key, a sealed held-out run gives what the unsealed run gives; public records name scenarios by keyed hashes', async t => {
  const repo = await sealedRepo(t)
  t.same(fs.readdirSync(path.join(repo, 'scenarios')).filter(f => f.startsWith('hold-')), [], 'no plain held-out file in the work tree')
  const sealed = await expJson<Run>(['run', 'holdout', '--repeat', '2'], {cwd: repo})
  const plain = await makeRepo(t)
  fs.cpSync(path.join(ROOT, 'scenarios'), path.join(plain, 'scenarios'), {recursive: true})
  fs.cpSync(path.join(ROOT, 'skills'), path.join(plain, 'skills'), {recursive: true})
  const open = await expJson<Run>(['run', 'holdout', '--repeat', '2'], {cwd: plain})
  t.equal(sealed.total, 2 * HELD.length)
  t.same([sealed.passed, sealed.success_rate], [open.passed, open.success_rate], 'the same success')
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const priv = ledger.load<'evaluation'>(ledger.get(sealed.private_evaluation!)!).body
  const pub = ledger.load<'evaluation'>(ledger.get(sealed.evaluation)!).body
  t.same(priv.per_scenario.map(p => [p.scenario, p.passes]), open.body.per_scenario.map(p => [p.scenario, p.passes]), 'the same result per scenario')
  t.equal(pub.per_scenario.length, HELD.length)
  t.ok(pub.per_scenario.every(p => /^hs-[0-9a-f]{24}$/.test(p.scenario)), 'public per-scenario counts name keyed hashes')
  t.notOk(JSON.stringify(pub).includes('hold-'), 'and no held-out id')
  t.match(pub, {sealed: {scenario_ids: 'keyed-hash'}, holdout_looks: 1})
  const fsck = await expJson<{problems: unknown[]}>(['fsck', '--replay'], {cwd: repo})
  t.same(fsck.problems, [], 'held-out episodes replay with the key')
})

t.test('without the key, with another key or a changed file: a clear error, nothing recorded; the gate says it cannot certify', async t => {
  const repo = await sealedRepo(t)
  const keyFile = path.join(repo, '.git', 'exp', 'holdout.key')
  const key = fs.readFileSync(keyFile, 'utf8').trim()
  fs.renameSync(keyFile, path.join(repo, '.git', 'holdout.key.away'))
  const lanes = async () => (await expJson<unknown[]>(['lanes'], {cwd: repo})).length
  const before = await lanes()
  const none = await exp(['run', 'holdout'], {cwd: repo})
  t.equal(none.code, 7)
  t.match(none.stderr, /the held-out split is sealed \(scenarios\/holdout.sealed\) and no key was found/)
  t.match(none.stderr, /EXP_HOLDOUT_KEY/)
  const other = await exp(['run', 'holdout'], {cwd: repo, env: {EXP_HOLDOUT_KEY: 'ab'.repeat(32)}})
  t.equal(other.code, 7)
  t.match(other.stderr, /was sealed with another key/)
  const bad = await exp(['run', 'holdout'], {cwd: repo, env: {EXP_HOLDOUT_KEY: 'xyz'}})
  t.equal(bad.code, 7)
  t.match(bad.stderr, /EXP_HOLDOUT_KEY is not 32 bytes/)
  const file = path.join(repo, 'scenarios', 'holdout.sealed')
  const text = fs.readFileSync(file, 'utf8')
  const lines = text.split('\n')
  lines[8] = lines[8]!.replace(/[A-Za-z]/, c => (c === 'A' ? 'B' : 'A'))
  fs.writeFileSync(file, lines.join('\n'))
  const changed = await exp(['run', 'holdout'], {cwd: repo, env: {EXP_HOLDOUT_KEY: key}})
  t.equal(changed.code, 7)
  t.match(changed.stderr, /does not decrypt: it was changed after sealing/)
  fs.writeFileSync(file, text)
  t.equal(await lanes(), before, 'nothing was recorded (no manifest on any lane)')

  // the gate without the key judges validation only, and says so
  await git(repo, 'checkout', '-q', '-b', 'tweak')
  const skill = path.join(repo, 'skills/onboarding/SKILL.md')
  // eight rules of the expert skill: a gain the policy's test can show on validation
  const rules = fs.readFileSync(path.join(ROOT, 'test/fixtures/skills/onboarding-expert/SKILL.md'), 'utf8').split('\n').filter(l => /^\d+\. (Before|If|Never) `/.test(l)).slice(0, 8)
  fs.writeFileSync(skill, fs.readFileSync(skill, 'utf8').replace('## Failure handling', `${rules.map((l, i) => l.replace(/^\d+\./, `${7 + i}.`)).join('\n')}\n\n## Failure handling`))
  await git(repo, 'commit', '-qam', 'eight expert rules')
  const g = await exp(['gate', '--base', 'main', '--head', 'tweak', '--json'], {cwd: repo})
  t.equal(g.code, 0, g.stderr)
  const res = JSON.parse(g.stdout) as {passed: boolean; certified: boolean; notes: string[]; skills: {holdout?: unknown}[]}
  t.match(res, {passed: true, certified: false, notes: [/cannot certify/]})
  t.notOk(res.skills[0]!.holdout, 'no held-out result without the key')
  const md = await exp(['gate', '--base', 'main', '--head', 'tweak'], {cwd: repo})
  t.match(md.stdout, /## exp gate: PASS \(validation only, not certified\)/)
  // (found by a sweep: the gate's error named the temporary folder the base's scenarios sit in)
  const wrongKey = await exp(['gate', '--base', 'main', '--head', 'tweak'], {cwd: repo, env: {EXP_HOLDOUT_KEY: 'ab'.repeat(32)}})
  t.equal(wrongKey.code, 7)
  t.match(wrongKey.stderr, /[0-9a-f]{12}:scenarios\/holdout\.sealed was sealed with another key/)
  t.notMatch(wrongKey.stdout + wrongKey.stderr, /exp-gate-/, 'no temporary folder named')
  const withKey = await expJson<{certified: boolean; skills: {holdout?: {head: number}}[]}>(['gate', '--base', 'main', '--head', 'tweak'], {cwd: repo, env: {EXP_HOLDOUT_KEY: key}})
  t.match(withKey, {certified: true, skills: [{holdout: {head: Number}}]}, 'with the key from a secret it certifies')
})

t.test('after init, evolve and sync, no object of either repository and no work-tree file holds a held-out task', async t => {
  const repo = await sealedRepo(t)
  const remote = path.join(tempDir(t), 'remote.git')
  await git(path.dirname(remote), 'init', '-q', '--bare', remote)
  await git(repo, 'remote', 'add', 'origin', remote)
  // two iterations of one repetition each: a rejection and a promotion on this example, held-out
  // runs of both; more episodes of the same kinds would not put a task anywhere new
  const ev = await exp(['evolve', '--iterations', '2', '--train-repeat', '1', '--eval-repeat', '1'], {cwd: repo})
  t.equal(ev.code, 0, ev.stderr)
  t.match(ev.stdout, /held-out: /)
  t.match(ev.stdout, /promoted 1\b/, 'a promotion: a merge commit and its decision are among the objects searched')
  await git(repo, 'push', '-q', 'origin', 'main')
  const sync = await exp(['sync'], {cwd: repo})
  t.equal(sync.code, 0, sync.stderr)
  const objects = (dir: string) => execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {cwd: dir, env: GIT_ENV, maxBuffer: 1 << 28})
  const files = workingFiles(repo)
  const local = objects(repo)
  t.ok(local.length > 1_000_000, 'the repository holds the run (held-out traces on the private lane included)')
  const hay = Buffer.concat([local, objects(remote), ...files])
  const found = TASKS.filter(task => hay.includes(task))
  t.same(found, [], `none of the ${TASKS.length} held-out tasks`)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  t.ok((await store.ledger()).select({kinds: ['trace'], includePrivate: true}).some(e => e.private), 'held-out traces were recorded, privately')
})

t.test('exp seal with nothing new to seal says so, changes nothing, and asks for no commit', async t => {
  const repo = await sealedRepo(t)
  const file = path.join(repo, 'scenarios', 'holdout.sealed')
  const before = fs.readFileSync(file)
  const r = await exp(['seal'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, new RegExp(`^nothing new to seal: scenarios/holdout\\.sealed already holds ${HELD.length} file\\(s\\), left as it was$`, 'm'))
  t.notMatch(r.stdout, /next: git add/)
  t.same(fs.readFileSync(file), before, 'the sealed file is as it was')
})

// found comparing what git's own config changes: with log.showRoot=false, `git log --name-only`
// lists no file of a root commit, and held-out files committed there in the clear went unmentioned
t.test('exp seal names held-out files already in history, the first commit included, whatever log.showRoot says', async t => {
  const repo = await makeRepo(t, {empty: true})
  const names = [...HELD.slice(0, 2), ...fs.readdirSync(path.join(ROOT, 'scenarios')).filter(f => f.startsWith('train-')).slice(0, 2)]
  fs.mkdirSync(path.join(repo, 'scenarios'))
  for (const f of names) fs.copyFileSync(path.join(ROOT, 'scenarios', f), path.join(repo, 'scenarios', f))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'scenarios, held-out ones in the clear')
  await git(repo, 'config', 'log.showRoot', 'false')
  const r = await expJson<{sealed: string[]; in_history: string[]}>(['seal'], {cwd: repo})
  t.same(r.sealed, HELD.slice(0, 2).map(f => `scenarios/${f}`).sort())
  t.same(r.in_history, r.sealed, 'both named: they are in the first commit in the clear')
})
