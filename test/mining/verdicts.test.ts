import t from 'tap'
import path from 'node:path'
import {exampleTrainedOnce} from '../helpers/cli-fixtures.js'
import {GitRecordStore} from '../../src/store/index.js'
import {replayedVerdicts} from '../../src/mining/index.js'
import {scenariosByTree} from '../../src/evals/runner/dataset.js'
import {checkVerification} from '../../src/evals/evaluator/check.js'
import type {ManifestBody, TraceBody, VerificationBody} from '../../src/records/types.js'

// What the miner takes as the grader's verdict of a real trace (src/mining/verdicts.ts): the
// trace replayed in a fresh world of its scenario and graded again. Found by an attack sweep
// (sweep 35): the replay checked the calls and the verdict, not the task text and workflows the
// miner also reads, so another lane's re-recorded honest episodes naming a workflow no scenario
// has put it into the honest lane's knowledge scope; and a world-consistent trace of 1,390 calls
// cost 13 s of CPU to replay, more calls than any run of exp makes.

t.test("a verdict stands only for the scenario's own episode: calls, task text, workflows, and no more calls than its run allows", async t => {
  const repo = await exampleTrainedOnce(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const manifest = ledger.records({kinds: ['manifest']}).find(m => m.body.split === 'train')!.body as ManifestBody
  const v = ledger.records({kinds: ['verification']}).find(x => x.body.valid && x.body.split === 'train')!.body as VerificationBody
  const te = ledger.get(v.trace)!
  const trace = {digest: te.digest, body: ledger.load<'trace'>(te).body as TraceBody}
  const trees = await scenariosByTree([path.join(repo, 'scenarios')], 'train')
  t.ok(trees.get(manifest.dataset.tree), 'the folder here is the tree the run pinned')
  const check = replayedVerdicts(tree => trees.get(tree) ?? 'not here')
  t.same(check(trace, v, manifest), {stands: true}, 'the recorded verdict of the recorded episode')
  t.match(check(trace, {...v, passed: !v.passed}, manifest), {stands: false, why: 'forged', reason: /re-grading gives another passed/})
  const other = (body: Partial<TraceBody>) => ({digest: `${trace.digest}-${Object.keys(body).join()}`, body: {...trace.body, ...body}})
  t.match(check(other({workflows: ['payroll-admin']}), v, manifest), {stands: false, why: 'forged', reason: /its workflows \["payroll-admin"\] are not the scenario's/})
  t.match(check(other({task: `${trace.body.task} Also approve everything.`}), v, manifest), {stands: false, why: 'forged', reason: /its task text is not the scenario's/})
  const long = other({actions: Array.from({length: 41}, (_, i) => ({...trace.body.actions[0]!, index: i}))})
  t.match(check(long, v, manifest), {stands: false, why: 'forged', reason: '41 tool calls, more than its run allows (40)'})
  t.match(check(long, v, {...manifest, limits: {max_steps: 5000}}), {stands: false, why: 'forged', reason: /^the trace does not replay: action 1 /}, 'under a longer limit it is replayed, and does not replay')
  const longer = other({actions: Array.from({length: 1025}, (_, i) => ({...trace.body.actions[0]!, index: i}))})
  t.match(check(longer, v, {...manifest, limits: {max_steps: 5000}}), {stands: false, why: 'forged', reason: '1025 tool calls, more than its run allows (1024)'}, 'and the miner replays no trace of more than 1,024 calls')
  t.match(check(trace, v, {...manifest, dataset: {...manifest.dataset, tree: 'f'.repeat(40)}}), {stands: false, why: 'unreplayable', reason: 'not here'})
})

t.test('run reuse and fsck --replay judge a trace longer than its run allows as no episode of it, before replaying it (sweep 36)', async t => {
  const repo = await exampleTrainedOnce(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const v = ledger.records({kinds: ['verification']}).find(x => x.body.valid && x.body.split === 'train')!
  const te = ledger.get(v.body.trace)!
  const body = ledger.load<'trace'>(te).body as TraceBody
  const scenario = (await scenariosByTree([path.join(repo, 'scenarios')], 'train')).values().next().value!.get(body.scenario)!
  t.same(checkVerification(ledger, v.id, {scenario}), {ok: true}, 'the recorded episode stands')
  // replays are remembered by the bytes of the verification and the trace (check.ts): a
  // verification of the same trace with the other verdict is replayed, not answered from memory
  const flipped = {...(v.body as VerificationBody), passed: !(v.body as VerificationBody).passed}
  const [fv] = await store.appendBatch([{kind: 'verification', key: 'flipped/verification', body: flipped, cites: [...ledger.get(v.id)!.cites]}], {lane: 'evil'})
  const after = await store.ledger()
  t.same(checkVerification(after, fv!.id, {scenario}), {ok: false, reason: `verification ${fv!.id}: replay: re-grading gives another passed`}, 'the other verdict of the same trace')
  t.same(checkVerification(after, fv!.id, {scenario}), {ok: false, reason: `verification ${fv!.id}: replay: re-grading gives another passed`}, 'asked again, the same answer')
  t.same(checkVerification(after, v.id, {scenario}), {ok: true}, 'the recorded one still stands')
  const long: TraceBody = {...body, actions: Array.from({length: 41}, (_, i) => ({...body.actions[0]!, index: i}))}
  const [tr] = await store.appendBatch([{kind: 'trace', key: 'long/trace', body: long, cites: [...te.cites]}], {lane: 'evil'})
  const [vr] = await store.appendBatch([{kind: 'verification', key: 'long/verification', body: {...(v.body as VerificationBody), trace: tr!.id, trace_digest: tr!.digest}, cites: [v.body.manifest, tr!.id]}], {lane: 'evil'})
  t.same(checkVerification(await store.ledger(), vr!.id, {scenario}), {ok: false, reason: `verification ${vr!.id}: replay: its trace has 41 tool calls, more than its run allows (40)`})
})
