import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson, ROOT} from '../helpers/cli.js'
import {splitSize} from '../helpers/evolve.js'
import {smallExampleRepo as exampleRepo} from '../helpers/loop-example.js'
import {git, tempDir} from '../helpers/repo.js'

interface GateJson {
  passed: boolean
  skills: {skill: string; verdict: string; validation: {base: number; head: number; evaluations: string[]; passes?: number; episodes: number; from_shards?: number; comparison: {wins: number; losses: number}}; holdout?: {evaluations: string[]}}[]
  shard?: {lane: string; episodes: number; recorded: number; receipts: string[]}
}

/** these gates run as CI jobs do (their records on the ci lanes) */
const CI = {CI: 'true'}

/**
 * The small example (a third of the built-in scenarios, test/helpers/loop-example.ts: how
 * shards split and assemble a gate does not depend on how many there are) with a branch
 * `good` that adds eight expert rules (a change the policy's test can show).
 */
async function withGoodBranch(t: Parameters<typeof exampleRepo>[0]): Promise<string> {
  const repo = await exampleRepo(t)
  const skill = path.join(repo, 'skills/onboarding/SKILL.md')
  const rules = fs.readFileSync(path.join(ROOT, 'test/fixtures/skills/onboarding-expert/SKILL.md'), 'utf8').split('\n').filter(l => /^\d+\. (Before|If|Never) `/.test(l)).slice(0, 8)
  await git(repo, 'checkout', '-q', '-b', 'good')
  fs.writeFileSync(skill, fs.readFileSync(skill, 'utf8').replace('## Failure handling', `${rules.map((l, i) => l.replace(/^\d+\./, `${7 + i}.`)).join('\n')}\n\n## Failure handling`))
  await git(repo, 'commit', '-qam', 'skill: eight expert rules')
  await git(repo, 'checkout', '-q', 'main')
  return repo
}

t.test('the gate over two shard jobs decides as one gate: the same evaluations, the same verdict', async t => {
  const a = await withGoodBranch(t)
  const b = tempDir(t)
  fs.cpSync(a, b, {recursive: true})
  const gate = ['gate', '--base', 'main', '--head', 'good']
  const shards = await Promise.all([1, 2].map(i => expJson<GateJson>([...gate, '--shard', `${i}/2`], {cwd: a, env: CI})))
  t.same(shards.map(s => s.shard!.lane), ['ci-shard-1', 'ci-shard-2'], 'each shard on its own lane')
  t.ok(shards.every(s => s.skills.length === 0 && s.passed), 'a shard decides nothing')
  const ran = shards.reduce((n, s) => n + s.shard!.episodes, 0)
  const looks = Number(/^\s+looks: (\d+)$/m.exec(fs.readFileSync(path.join(a, '.research/policy.yaml'), 'utf8'))![1])
  t.equal(ran, 2 * splitSize(a, 'validation') * looks, `together the shards ran every pass (${looks}) of base and head`)
  const decided = await expJson<GateJson>([...gate, '--shards', '2'], {cwd: a, env: CI})
  const single = await expJson<GateJson>(gate, {cwd: b, env: CI})
  t.equal(decided.passed, true)
  t.equal(decided.passed, single.passed)
  const [d, s] = [decided.skills[0]!, single.skills[0]!]
  t.same(d.validation.evaluations, s.validation.evaluations, 'the same validation evaluation records')
  t.equal(d.validation.passes, s.validation.passes, 'stopped at the same pass')
  t.same(d.validation.comparison, s.validation.comparison)
  t.equal(d.validation.from_shards, d.validation.episodes, 'every validation episode came from the shards')
  t.ok(d.holdout && s.holdout, 'the held-out split is evaluated by the deciding job itself')
})

t.test('a missing shard, or a receipt on a lane that is not the shard\'s, is an error that names the shard', async t => {
  const repo = await withGoodBranch(t)
  const gate = ['gate', '--base', 'main', '--head', 'good']
  t.equal((await exp([...gate, '--shard', '1/2'], {cwd: repo, env: CI})).code, 0)
  // someone copies shard 1's receipt onto another lane, claiming to be shard 2
  const receipt = (await expJson<{lane: string; body: {text: string; about: string[]}}[]>(['ledger', '--kind', 'note'], {cwd: repo, env: CI})).find(n => n.lane === 'ci-shard-1')!
  const forged = JSON.stringify({text: receipt.body.text.replace('shard 1/2', 'shard 2/2'), about: receipt.body.about, action: 'comment'})
  const appended = await exp(['append', 'note', '-', '--lane', 'mallory'], {cwd: repo, input: forged})
  t.equal(appended.code, 0, appended.stderr)
  const r = await exp([...gate, '--shards', '2'], {cwd: repo, env: CI})
  t.not(r.code, 0)
  t.match(r.stderr, /the receipts of shard\(s\) 2 of 2 for onboarding .* are not on lanes ci-shard-2/)
})

t.test('a shard lane that held a receipt before its shard job ran (fetched from a remote anyone may push lanes to) is refused, not added up', async t => {
  const repo = await withGoodBranch(t)
  const gate = ['gate', '--base', 'main', '--head', 'good']
  // a lane owner writes a receipt of shard 1 for this very gate onto ci-shard-1 ahead of the
  // job, vouching for records of their own (here, ids of nothing: what they vouch for is theirs)
  const base = (await git(repo, 'rev-parse', 'main')).trim()
  const head = (await git(repo, 'rev-parse', 'good')).trim()
  const text = `exp gate shard 1/2 of ${base}..${head}, skill onboarding, at 2026-01-01T00:00:00.000Z: ran these 1 validation episode(s) itself`
  const planted = await exp(['append', 'note', '-', '--lane', 'ci-shard-1'], {cwd: repo, input: JSON.stringify({text, about: ['vr-' + '0'.repeat(24)], action: 'comment'})})
  t.equal(planted.code, 0, planted.stderr)
  for (const i of [1, 2]) t.equal((await exp([...gate, '--shard', `${i}/2`], {cwd: repo, env: CI})).code, 0)
  const r = await exp([...gate, '--shards', '2', '--json'], {cwd: repo, env: CI})
  t.equal(r.code, 4, 'a conflict: the gate does not decide')
  const err = JSON.parse(r.stdout).error
  t.equal(err.code, 'E_CONFLICT')
  t.match(err.message, /lane ci-shard-1 holds 2 receipts of shard 1\/2 for onboarding .*not one/)
  t.match(err.hint, /'\^refs\/research\/lanes\/ci-shard-\*'/)
})

t.test('the sharded workflow fetches no shard lane from the remote: each shard job starts its lane empty, the deciding job takes it from the bundle', async t => {
  const repo = await exampleRepo(t)
  // (exp installed from a spec, not packed into the repository: the install step is all the
  // spec changes, not a fetch; packing exp is seconds of npm the next test spends already)
  const r = await expJson<{file: string}>(['ci', 'init', '--shards', '2', '--install', 'experience-compiler@0.1.0'], {cwd: repo})
  const fetches = fs.readFileSync(r.file, 'utf8').split('\n').filter(l => /run: git fetch --no-tags origin /.test(l)).map(l => l.replace(/^\s*run: /, ''))
  t.equal(fetches.length, 2, 'the shard jobs and the deciding job')
  t.ok(fetches.every(f => f.includes("'^refs/research/lanes/ci-shard-*'")))
  // run it as the jobs do, against a remote whose lanes include a planted shard lane
  const origin = tempDir(t)
  await git(origin, 'init', '-q', '--bare')
  await git(repo, 'push', '-q', origin, 'main', '+refs/research/lanes/*:refs/research/lanes/*')
  await git(repo, 'push', '-q', origin, 'main:refs/research/lanes/ci-shard-1', 'main:refs/research/lanes/ci-shard-12', 'main:refs/research/lanes/someone')
  const job = tempDir(t)
  await git(job, 'init', '-q')
  await git(job, 'remote', 'add', 'origin', origin)
  const {execFileSync} = await import('node:child_process')
  execFileSync('sh', ['-c', fetches[0]!], {cwd: job})
  const lanes = (await git(job, 'for-each-ref', '--format=%(refname)', 'refs/research/')).split('\n').filter(Boolean)
  t.ok(lanes.includes('refs/research/lanes/someone'), 'the other lanes are fetched')
  t.notOk(lanes.some(l => l.includes('ci-shard-')), 'no shard lane is')
})

t.test('exp ci init --shards 4: a matrix of four shard jobs and a deciding job, and it lints clean', async t => {
  const repo = await exampleRepo(t)
  const r = await expJson<{shards: number; file: string}>(['ci', 'init', '--shards', '4'], {cwd: repo})
  t.equal(r.shards, 4)
  const text = fs.readFileSync(r.file, 'utf8')
  t.match(text, /shard: \[1, 2, 3, 4\]/)
  t.match(text, /exp gate --base "refs\/remotes\/origin\/\$BASE_REF" --head HEAD --shard "\$SHARD\/4"/)
  t.match(text, /needs: shard/)
  t.match(text, /exp gate --base "refs\/remotes\/origin\/\$BASE_REF" --head HEAD --shards 4 --require-certified --junit exp-gate\.xml/)
  t.match(text, /git fetch --no-tags "\$b" '\+refs\/research\/lanes\/\*:refs\/research\/lanes\/\*'/, 'the bundles win over lanes of the same name')
  t.notMatch(text, /uses: [^@\s]+@(?![0-9a-f]{40} # v\d)/, 'every action pinned by a full commit id')
  t.notMatch(text, /contents: write/, 'no job may write to the repository')
  const lint = await new Promise<{code: number; out: string}>(resolve => {
    import('node:child_process').then(({execFile}) => execFile(path.join(ROOT, 'node_modules', '.bin', 'action-validator'), [r.file], (err, stdout, stderr) => resolve({code: err ? 1 : 0, out: `${stdout}${stderr}`})))
  })
  t.equal(lint.code, 0, `action-validator: ${lint.out}`)
  const bad = await exp(['ci', 'init', '--shards', '0', '--force'], {cwd: repo})
  t.equal(bad.code, 2)
})

// Found by an attack sweep: the deciding job reused a vouched id as the ledger's first copy of
// it, and a lane that sorts first (anyone who may push lanes can write one between the shard
// jobs and the deciding job) held failing copies of the base's episodes under those ids: a
// change of nothing passed, 0% -> 42%. The copy reused is the one the shard's own lane holds.
t.test('a vouched id is reused only as the shard lane holds it, never as a copy another lane put first', async t => {
  const {admitOf} = await import('../../src/evals/runner/plan.js')
  const {Ledger} = await import('../../src/store/index.js')
  const id = 'vr-0123456789abcdef01234567'
  const entry = (lane: string, digest: string, lamport: number) => ({id, kind: 'verification' as const, digest, lane, ref: `refs/research/lanes/${lane}`, private: false, lamport, commit: '0'.repeat(40), cites: []})
  const theirs = `sha256:${'1'.repeat(64)}`
  const ours = `sha256:${'2'.repeat(64)}`
  const load = () => {
    throw new Error('not read')
  }
  const run = {manifest: 'mf-000000000000000000000000', lane: 'ci'}
  const only = {only: new Map([[id, 'ci-shard-1']])}
  type Entry = ReturnType<typeof entry>
  // (a predicate on one copy: reuse takes the shard lane's own copy, never the one ledger order shows first)
  const admit = async (l: InstanceType<typeof Ledger>, e: Entry) => ((await admitOf(only, l, run)) as (x: Entry) => boolean)(e)
  const mine = entry('ci-shard-1', ours, 5)
  const bTheirs = entry('b', theirs, 1)
  const bOurs = entry('b', ours, 1)
  t.equal(await admit(new Ledger([mine], load), mine), true, "the shard lane's own copy")
  t.equal(await admit(new Ledger([bTheirs, mine], load), bTheirs), false, "another lane's copy sorts first: it is not admitted")
  t.equal(await admit(new Ledger([bTheirs, mine], load), mine), true, "and the shard lane's own still is")
  t.equal(await admit(new Ledger([bOurs, mine], load), bOurs), true, 'a copy with the same bytes is the same record')
  t.equal(await admit(new Ledger([bOurs], load), bOurs), false, 'not on the shard lane at all')
})
