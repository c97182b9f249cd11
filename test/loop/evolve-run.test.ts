import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {git, tempDir} from '../helpers/repo.js'
import {exampleRepo, type EvolveJson} from '../helpers/evolve.js'
import {SMALL_EVOLVE_RUN, smallEvolvedOnce} from '../helpers/cli-fixtures.js'

interface RunJson extends EvolveJson {
  run: {id: string; generation: number; resumed: number; finished_before: boolean}
  stopped?: string
  iterations: (EvolveJson['iterations'][number] & {note?: string; training: {manifest: string}; skill: {commit: string}})[]
}

// Problems 9 and 10 of issue 13: a finished run is finished; a new one needs --continue; the
// loop stops when nothing is left and trains an unchanged skill at most once more (fresh seeds,
// when its knowledge ran out). The first runs on the small example (a third of the built-in
// scenarios, test/helpers/loop-example.ts): what a run is does not depend on its size. The
// second needs the full one: on the small one no iteration is built from the second training
// run's knowledge before the loop stops.
t.test('--iterations on a finished run says it is finished; --continue starts a new run from the current main', async t => {
  // the small example after its first run of args (shared with the last test: test/helpers/cli-fixtures.ts)
  const {repo, evolve: first} = await smallEvolvedOnce<RunJson>(t)
  const args = [...SMALL_EVOLVE_RUN]
  t.equal(first.run.generation, 1)
  t.notOk(first.run.finished_before)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  const again = await exp(args, {cwd: repo})
  t.equal(again.code, 0, again.stderr)
  t.match(again.stdout, new RegExp(`evolve run ${first.run.id}/1 has finished already \\(1 of 1 iteration\\(s\\)\\); \`exp evolve --continue\``))
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'nothing ran')
  const json = await expJson<RunJson>(args, {cwd: repo})
  t.ok(json.run.finished_before)
  t.same(json.iterations.map(i => i.decision?.id), first.iterations.map(i => i.decision?.id), 'the finished run as it was')
  const next = await expJson<RunJson>([...args, '--continue'], {cwd: repo})
  t.equal(next.run.id, first.run.id)
  t.equal(next.run.generation, 2, 'a new run of the same options')
  t.notOk(next.run.finished_before)
  t.equal(next.iterations[0]!.skill.commit, main, 'it starts from the current main')
  // other options (an episode budget that stops it after its first iteration): another run
  const other = await expJson<RunJson>(['evolve', '-n', '2', '--budget-episodes', '1', '--train-repeat', '1', '--eval-repeat', '1', '--lane', 'me'], {cwd: repo})
  t.not(other.run.id, first.run.id, 'other options, another run')
  t.equal(other.run.generation, 1, 'a run of its own, from its first generation')
})

t.test('evolve stops when no candidate is left, says why, and trains an unchanged skill once, then once more when its knowledge ran out', async t => {
  const repo = await exampleRepo(t)
  // a policy nothing passes: every candidate is rejected until none is left
  const policy = path.join(repo, '.research/policy.yaml')
  fs.writeFileSync(policy, fs.readFileSync(policy, 'utf8').replace('min_delta: 0', 'min_delta: 0.99'))
  await git(repo, 'commit', '-q', '-am', 'a policy nothing passes')
  const events = path.join(tempDir(t), 'events.jsonl')
  const r = await expJson<RunJson>(['evolve', '-n', '40', '--train-repeat', '1', '--eval-repeat', '1', '--max-rules', '1', '--lane', 'me', '--events', events], {cwd: repo})
  t.ok(r.iterations.length < 40, `stopped after ${r.iterations.length} iteration(s)`)
  t.equal(r.promoted, 0)
  t.match(r.stopped, /^no candidate left: /)
  const last = r.iterations.at(-1)!
  t.notOk(last.decision, 'the last iteration had no candidate')
  t.ok(r.iterations.slice(0, -1).every(i => i.decision?.verdict === 'reject'))
  const trainRuns = fs.readFileSync(events, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l) as {event: string; split?: string}).filter(e => e.event === 'run_started' && e.split === 'train')
  t.equal(trainRuns.length, 2, `two train runs for ${r.iterations.length} iterations on an unchanged skill`)
  const used = [...new Set(r.iterations.map(i => i.training.manifest))]
  t.equal(used.length, 2, 'the first until its knowledge ran out, then the second')
  const switched = r.iterations.findIndex(i => i.training.manifest === used[1])
  t.ok(switched > 0 && r.iterations.slice(switched).every(i => i.training.manifest === used[1]), 'never back to the first')
  const text = await exp(['evolve', '-n', '40', '--train-repeat', '1', '--eval-repeat', '1', '--max-rules', '1', '--lane', 'me'], {cwd: repo})
  t.match(text.stdout, /stopped: no candidate left: /, 'said in the text view too')
})

// Found walking the tour as a new user: without a policy on main, evolve ran ~500 episodes and
// built a proposal branch before the first promotion looked for the policy and failed.
t.test('evolve without the skill or the promotion policy on main says so before it runs or records anything', async t => {
  const repo = await exampleRepo(t)
  const refs = async () => (await git(repo, 'for-each-ref')).trim()
  const before = await refs()
  const s = await exp(['evolve', '-n', '1', '--lane', 'me', '--skill', 'nosuch'], {cwd: repo})
  t.equal(s.code, 3, s.stderr)
  t.match(s.stderr, /skill on main.*skills\/nosuch\/SKILL\.md/)
  t.equal(await refs(), before, 'no record, lane or proposal branch written')

  await git(repo, 'rm', '-q', '.research/policy.yaml')
  await git(repo, 'commit', '-qm', 'no policy')
  const after = await refs()
  const r = await exp(['evolve', '-n', '1', '--lane', 'me'], {cwd: repo})
  t.equal(r.code, 3, r.stderr)
  t.match(r.stderr, /promotion policy.*\.research\/policy\.yaml/)
  t.match(r.stderr, /exp init/)
  t.equal(await refs(), after, 'no record, lane or proposal branch written')

  // the same for uncommitted changes on the checked-out main, which would stop the first promotion
  await git(repo, 'reset', '-q', '--hard', 'HEAD~1')
  fs.appendFileSync(path.join(repo, 'skills/onboarding/SKILL.md'), '\nan edit not committed\n')
  const clean = await refs()
  const d = await exp(['evolve', '-n', '1', '--lane', 'me'], {cwd: repo})
  t.equal(d.code, 4, d.stderr)
  t.match(d.stderr, /uncommitted changes: skills\/onboarding\/SKILL\.md/)
  t.match(d.stderr, /hint: commit or stash them/)
  t.equal(await refs(), clean, 'no record, lane or proposal branch written')
  t.match(fs.readFileSync(path.join(repo, 'skills/onboarding/SKILL.md'), 'utf8'), /an edit not committed/, 'the edit is kept')
})

t.test('a run killed after an iteration decided, before its note: the resumed run counts that iteration\'s episodes, as one never killed does', async t => {
  // the run never killed (what its --json printed) and, in a copy of its repository, the same
  // run (test/helpers/cli-fixtures.ts: args run once in the small example for this file's tests)
  const {repo: copy, evolve: clean} = await smallEvolvedOnce<RunJson>(t)
  const args = [...SMALL_EVOLVE_RUN]
  t.ok(clean.episodes > 0)
  // that run, killed (as it were) between its decision and its notes: the lane
  // rewound past the iteration's note and the finished note, no cache or seen tips left (the key stays)
  const subjects = (await git(copy, 'log', '--format=%s', 'refs/research/lanes/me')).split('\n')
  t.match(subjects[0], /^note: evolve run .* finished/)
  t.match(subjects[1], /^note: evolve run .*, iteration 1 of 1/)
  await git(copy, 'update-ref', 'refs/research/lanes/me', 'refs/research/lanes/me~2')
  for (const f of fs.readdirSync(path.join(copy, '.git', 'exp'))) if (f !== 'holdout.key') fs.rmSync(path.join(copy, '.git', 'exp', f), {recursive: true, force: true})
  const resumed = await expJson<RunJson>(args, {cwd: copy})
  t.equal(resumed.run.resumed, 0, 'no iteration was noted before: it is recovered from its decision')
  t.equal(resumed.episodes, clean.episodes, 'the episodes of the recovered iteration count toward the run (and its budget)')
})
