import t from 'tap'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {MemoryWorkspace} from '../../../src/workspace/memory.js'
import {GitRecordStore} from '../../../src/store/index.js'
import {runEvaluation} from '../../../src/evals/runner/run.js'
import {runOpts} from '../../helpers/research.js'
import {SMALL_SPLITS, smallBenchmarkRepo as benchmarkRepo} from '../../helpers/loop-example.js'

// what these tests assert holds for any set of scenarios: they run a third of the built-in
// set (test/helpers/loop-example.ts), not all of it
const TRAIN = SMALL_SPLITS.train

const digests = async (repo: string, kinds: ('trace' | 'verification')[]) => {
  const s = await GitRecordStore.open(repo)
  const l = await s.ledger()
  const out = l.select({kinds}).map(e => `${e.id}:${e.digest}`).sort()
  await s.close()
  return out
}

t.test('the same seed gives identical trace and verification digests, in any repository', async t => {
  const a = await benchmarkRepo(t)
  const b = await benchmarkRepo(t)
  const ra = await runEvaluation(await GitRecordStore.open(a), runOpts(a, {split: 'train', seed: 7, repeat: 2}))
  const rb = await runEvaluation(await GitRecordStore.open(b), runOpts(b, {split: 'train', seed: 7, repeat: 2, concurrency: 1, lane: 'other'}))
  t.equal(ra.manifest, rb.manifest, 'same manifest id')
  t.equal(ra.evaluation, rb.evaluation, 'same evaluation id')
  t.equal(ra.total, TRAIN * 2)
  t.same(await digests(a, ['trace', 'verification']), await digests(b, ['trace', 'verification']))
  const rc = await runEvaluation(await GitRecordStore.open(b), runOpts(b, {split: 'train', seed: 8, repeat: 2}))
  t.not(rc.manifest, ra.manifest, 'another seed is another experiment')
})

t.test('running again records nothing new', async t => {
  const repo = await benchmarkRepo(t)
  const store = await GitRecordStore.open(repo)
  const first = await runEvaluation(store, runOpts(repo, {split: 'validation'}))
  const before = (await store.ledger()).size
  const again = await runEvaluation(store, runOpts(repo, {split: 'validation'}))
  t.equal(again.recorded, 0)
  t.equal(again.resumed, first.total)
  t.equal(again.evaluation, first.evaluation)
  t.equal((await store.ledger()).size, before)
  await store.close()
})

t.test('held-out traces stay on the private lane; the public lane gets the aggregate', async t => {
  const repo = await benchmarkRepo(t)
  const store = await GitRecordStore.open(repo)
  const r = await runEvaluation(store, runOpts(repo, {split: 'holdout', repeat: 2}))
  const pub = await store.ledger({includePrivate: false})
  t.same([...new Set(pub.entries.map(e => e.kind))].sort(), ['evaluation', 'manifest'])
  const agg = pub.load<'evaluation'>(r.evaluation)
  t.same(agg.body.per_scenario, [], 'no scenario ids in public')
  t.same(agg.cites, [r.manifest], 'and nothing private cited')
  t.same(pub.load<'manifest'>(r.manifest).body.dataset.scenarios, [])
  t.equal(agg.body.holdout_looks, 1)
  const all = await store.ledger()
  t.equal(all.select({kinds: ['trace']}).filter(e => e.private).length, r.total)
  t.equal(all.load<'evaluation'>(r.private_evaluation!).body.per_scenario.length, r.total / 2)
  const again = await runEvaluation(store, runOpts(repo, {split: 'holdout', repeat: 2}))
  t.equal(again.evaluation, r.evaluation, 'the same run is the same look')
  const other = await runEvaluation(store, runOpts(repo, {split: 'holdout', seed: 3}))
  t.equal((await store.ledger()).load<'evaluation'>(other.evaluation).body.holdout_looks, 2, 'a new look is counted')
  await store.close()
})

t.test('a crashing command agent gives invalid episodes, counted apart, never a crashed run', async t => {
  const repo = await benchmarkRepo(t)
  const store = await GitRecordStore.open(repo)
  const agent = `command:${process.execPath} ${new URL('../../fixtures/agents/misbehaving-agent.mjs', import.meta.url).pathname} crash`
  const r = await runEvaluation(store, runOpts(repo, {split: 'validation', agent, concurrency: 2}))
  t.equal(r.invalid, r.total)
  t.equal(r.passed, 0)
  t.equal(r.success_rate, 0)
  const l = await store.ledger()
  const v = l.records({kinds: ['verification']})[0]!
  t.equal(v.body.valid, false)
  t.equal(v.body.outcome, 'invalid')
  t.match(v.body.invalid_reason, /crash/)
  await store.close()
})

t.test('the example command agent runs end to end through the protocol', async t => {
  const repo = await benchmarkRepo(t)
  const store = await GitRecordStore.open(repo)
  const agent = `command:${process.execPath} ${new URL('../../../examples/agents/echo-agent.mjs', import.meta.url).pathname}`
  const r = await runEvaluation(store, runOpts(repo, {split: 'validation', agent}))
  t.equal(r.invalid, 0, 'every episode is valid')
  const tr = (await store.ledger()).records({kinds: ['trace']})[0]!
  t.ok(tr.body.actions.length > 0, 'tool calls were recorded')
  t.equal(tr.body.agent.name.startsWith('command:'), true)
  await store.close()
})

t.test('an unknown agent names the available ones', async t => {
  const repo = await benchmarkRepo(t)
  await t.rejects(runEvaluation(await GitRecordStore.open(repo), runOpts(repo, {split: 'train', agent: 'gpt5'})), {code: 'E_UNKNOWN_AGENT', message: /scripted.*command:PROGRAM.*openai:MODEL/})
})

// The gate never reuses episodes it did not record (reuse: 'none'), and a manifest pins the
// skill by its blob: the same SKILL.md gated again from another commit (a rebased pull
// request, CI's merge commit) is the same experiment, whose traces name another commit.
t.test('the same skill run again from other commits, never reusing: recorded, never a conflict', async t => {
  const repo = await benchmarkRepo(t)
  const text = readFileSync(path.join(repo, 'skills/onboarding/SKILL.md'), 'utf8')
  const ws = new MemoryWorkspace()
  const one = ws.seed('main', {'skills/onboarding/SKILL.md': text})
  const two = await ws.commitFiles({base: one, files: [{path: 'README.md', content: Buffer.from('two\n')}], message: 'two'})
  const three = await ws.commitFiles({base: two, files: [{path: 'README.md', content: Buffer.from('three\n')}], message: 'three'})
  const store = await GitRecordStore.open(repo)
  const gate = (skill: string) => runEvaluation(store, runOpts(repo, {split: 'validation', skill, workspace: ws, reuse: 'none', lane: 'ci'}))
  const runs = [await gate(one), await gate(two), await gate(three)]
  t.equal(new Set(runs.map(r => r.manifest)).size, 1, 'one experiment')
  t.same(runs.map(r => r.success_rate), Array(3).fill(runs[0]!.success_rate), 'the same result from every commit')
  const l = await store.ledger()
  const commits = new Set(l.records({kinds: ['trace']}).map(r => r.body.skill.commit))
  t.same([...commits].sort(), [one, two, three].sort(), 'each run recorded its own traces')
  const size = l.size
  const again = await gate(three)
  t.equal(again.evaluation, runs[2]!.evaluation, 'the same commit again is the same evaluation')
  t.equal((await store.ledger()).size, size, 'and records nothing new')
  await store.close()
})

// Found by a sweep: a run that hit a fatal error went on starting episodes after it had closed
// its agent (a command agent's copied files removed): each died in the sandbox's setup, and was
// recorded as the agent's crash, which a resumed run then kept.
t.test('once an append fails, the run starts no other episode, records nothing more, and throws when every episode stopped', async t => {
  const repo = await benchmarkRepo(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  let appends = 0
  const failing = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'appendBatch') {
        return async (...args: Parameters<typeof store.appendBatch>) => {
          if (++appends === 1) throw new Error('the disk is full')
          return target.appendBatch(...args)
        }
      }
      const v: unknown = Reflect.get(target, prop, receiver)
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
  let done = 0
  await t.rejects(runEvaluation(failing, runOpts(repo, {split: 'train', repeat: 3, batch: 1, concurrency: 4, onProgress: p => (done = p.done)})), /the disk is full/)
  const atThrow = done
  await new Promise(r => setTimeout(r, 300))
  t.equal(done, atThrow, 'no episode ran after the run threw')
  t.ok(atThrow <= 4, `only the episodes under way when the append failed were run (${atThrow} of ${TRAIN * 3})`)
  t.equal(appends, 1, 'nothing appended after the failure')
  t.equal((await store.ledger()).select({kinds: ['trace']}).length, 0)
})
