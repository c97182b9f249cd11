import t from 'tap'
import fs from 'node:fs'
import {exp, expJson} from '../../helpers/cli.js'
import {splitSize} from '../../helpers/evolve.js'
import {smallExampleRepo as exampleRepo} from '../../helpers/loop-example.js'
import {tempDir} from '../../helpers/repo.js'
import {inShard, parseShard} from '../../../src/evals/runner/shard.js'
import {slotsOf} from '../../../src/evals/runner/session.js'

interface Evaluation {
  evaluation: string
  manifest: string
  success_rate: number
  total: number
  recorded: number
  body: {per_scenario: {scenario: string; runs: number; passes: number; verifications: string[]}[]}
}
interface Shard {
  shard: {index: number; count: number}
  lane: string
  episodes: number
  recorded: number
  present: number
  total: number
  evaluation?: Evaluation
}

t.test('shards are disjoint slices that cover the run, by episode id', async t => {
  const scenarios = Array.from({length: 16}, (_, i) => ({id: `val-${i}`}) as Parameters<typeof slotsOf>[0][number])
  const slots = slotsOf(scenarios, 3)
  const owners = slots.map(s => [1, 2, 3, 4].filter(i => inShard('mf-0123456789abcdef01234567', s, {index: i, count: 4})))
  t.ok(owners.every(o => o.length === 1), 'each episode in exactly one shard')
  t.ok([1, 2, 3, 4].every(i => owners.some(o => o[0] === i)), 'no shard empty')
  t.same(parseShard('2/4'), {index: 2, count: 4})
  for (const bad of ['0/4', '5/4', '1/0', 'x', '1/2/3', '1/65']) t.throws(() => parseShard(bad), {code: 'E_USAGE'}, bad)
})

// sharding is by episode id and holds for any set of scenarios: the small example (a third of
// the built-in set, test/helpers/loop-example.ts), not the full one
t.test('four shards run as four processes on four lanes give the evaluation one unsharded run gives', async t => {
  const a = await exampleRepo(t)
  const b = tempDir(t)
  fs.cpSync(a, b, {recursive: true})
  const args = ['run', 'validation', '--repeat', '2']
  const n = 2 * splitSize(a, 'validation')
  const shards = await Promise.all([1, 2, 3, 4].map(i => expJson<Shard>([...args, '--shard', `${i}/4`, '--lane', `shard-${i}`], {cwd: a})))
  t.same(shards.map(s => s.lane), ['shard-1', 'shard-2', 'shard-3', 'shard-4'])
  t.equal(shards.reduce((k, s) => k + s.episodes, 0), n, `the slices cover the ${n} episodes`)
  t.equal(shards.reduce((k, s) => k + s.recorded, 0), n, 'and each was run once, by its own shard')
  t.ok(shards.every(s => s.recorded === s.episodes && s.total === n))
  // the evaluation is assembled once every shard's episodes are present: by a shard that found them all, or here
  const assembled = await expJson<Evaluation>(args, {cwd: a})
  t.equal(assembled.recorded, 0, 'nothing left to run: every episode came from the shards')
  for (const s of shards) if (s.evaluation) t.equal(s.evaluation.evaluation, assembled.evaluation, `shard ${s.shard.index} assembled the same evaluation`)
  const single = await expJson<Evaluation>(args, {cwd: b})
  t.equal(single.recorded, n)
  t.equal(assembled.manifest, single.manifest, 'the same experiment')
  t.equal(assembled.success_rate, single.success_rate, 'the same success')
  t.same(assembled.body.per_scenario, single.body.per_scenario, 'the same per-scenario results, down to the verification ids')
  t.equal(assembled.evaluation, single.evaluation, 'the same evaluation record')
  const lanes = await expJson<{lane: string; records: number}[]>(['lanes'], {cwd: a})
  // (a shard may hold no episode — ids place them, and 24 can leave one of four slices empty:
  // the fixture's commit times make the manifest, and some builds of it did — and then records
  // none, though it may record the evaluation it assembled)
  for (const s of shards) if (s.episodes) t.ok(lanes.find(l => l.lane === s.lane)?.records, `${s.lane} recorded on its own lane`)
  const fsck = await exp(['fsck'], {cwd: a})
  t.equal(fsck.code, 0, fsck.stdout)
})

t.test('a shard alone says what is missing and records no evaluation; a bad --shard is a usage error', async t => {
  const repo = await exampleRepo(t)
  const one = await expJson<Shard>(['run', 'validation', '--shard', '1/3', '--lane', 'x'], {cwd: repo})
  t.notOk(one.evaluation)
  t.equal(one.present, one.episodes, 'only its own episodes are present')
  const text = await exp(['run', 'validation', '--shard', '2/3', '--lane', 'y'], {cwd: repo})
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, new RegExp(`of ${splitSize(repo, 'validation')} episode\\(s\\) of the run are present: the evaluation is recorded once all are`))
  const evaluations = await expJson<unknown[]>(['ledger', '--kind', 'evaluation'], {cwd: repo})
  t.equal(evaluations.length, 0, 'no partial evaluation')
  const third = await expJson<Shard>(['run', 'validation', '--shard', '3/3', '--lane', 'z'], {cwd: repo})
  t.ok(third.evaluation, 'the last shard finds the others and records the evaluation')
  t.equal(third.evaluation!.total, splitSize(repo, 'validation'))
  const bad = await exp(['run', 'validation', '--shard', '4/3'], {cwd: repo})
  t.equal(bad.code, 2)
  t.match(bad.stderr, /--shard "4\/3" is not a shard/)
})
