import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {expJson} from '../helpers/cli.js'
import {git, tempDir} from '../helpers/repo.js'
import {keypair, signedPolicyRepo} from '../helpers/signing.js'
import {GitRecordStore} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {loadAuthority} from '../../src/trust/load.js'
import {loadScenarioDir} from '../../src/scenarios/index.js'
import {worldEvaluator} from '../../src/evals/evaluator/world.js'
import {episodeDrafts} from '../../src/evals/runner/records.js'
import {episodeSeed} from '../../src/evals/prompt.js'
import {loadAgent} from '../../src/agents/registry.js'
import type {ManifestBody, TraceBody} from '../../src/records/types.js'

interface RunOut {
  manifest: string
  evaluation: string
  success_rate: number
  total: number
  resumed: number
  recorded: number
}

// With require_signed_evidence a trusted identity's signature on an evaluation is what says the
// agent ran: the evaluation pins its verifications. A replay proves what a trace's calls do, not
// that the agent made them, so another lane's failing traces that replay under a baseline's
// public keys, reused by a trusted run, would have it sign numbers nobody trusted measured.
t.test('with signed evidence, a trusted run does not reuse episodes another lane fabricated under its keys', async t => {
  const keys = tempDir(t)
  const ci = keypair(keys, 'ci')
  const a = await signedPolicyRepo(t, [['ci@exp', ci.pub]])
  await git(a, 'config', 'exp.signingKey', ci.key)

  // mallory learns the experiment's public identity in a clone of her own: the manifest of a
  // validation run of main's skill, and what an honest run of it scores
  const b = path.join(tempDir(t), 'b')
  await git(path.dirname(b), 'clone', '-q', a, b)
  const honest = await expJson<RunOut>(['run', 'validation', '--lane', 'mallory'], {cwd: b})
  t.ok(honest.success_rate > 0.3, `an honest run passes some (${honest.success_rate})`)
  const theirs = await GitRecordStore.open(b)
  t.teardown(() => theirs.close())
  const ledger = await theirs.ledger()
  const manifest = ledger.load<'manifest'>(ledger.get(honest.manifest)!)
  const trace = ledger.load<'trace'>(ledger.select({kinds: ['trace'], cites: honest.manifest})[0]!).body as TraceBody

  // then records, on her lane of the victim's repository, failing episodes of that manifest: her
  // agent's runs without the skill, given the honest run's agent and skill, under its keys
  const store = await GitRecordStore.open(a)
  t.teardown(() => store.close())
  const mb = manifest.body as ManifestBody
  await store.append({kind: 'manifest', body: mb, cites: []}, {lane: 'mallory'})
  const scenarios = (await loadScenarioDir(path.join(a, 'scenarios'))).flatMap(f => (f.scenario && mb.dataset.scenarios.includes(f.scenario.id) ? [f.scenario] : []))
  t.equal(scenarios.length, mb.dataset.scenarios.length)
  const agent = await loadAgent('scripted')
  const drafts = []
  let failing = 0
  for (const scenario of scenarios) {
    for (let rep = 0; rep < mb.repeat; rep++) {
      const r = await worldEvaluator.judge({scenario, agent, skills: [{name: mb.skill.name, content: '# nothing\n'}], seed: episodeSeed(mb.seed, rep), repetition: rep})
      if (!r.verdict.passed) failing++
      const d = episodeDrafts(r, {manifest: honest.manifest, agent: mb.agent, skill: trace.skill})
      drafts.push(d.trace, d.verification)
    }
  }
  t.ok(failing > scenarios.length * mb.repeat * (1 - honest.success_rate), `her episodes fail more (${failing})`)
  const planted = await store.appendBatch(drafts, {lane: 'mallory'})
  t.ok(planted.every(p => p.status === 'created'), 'they are recorded under the keys an honest run of main would use')

  // alice, who holds the trusted key, runs the same experiment: she runs every episode herself
  const run = await expJson<RunOut>(['run', 'validation', '--lane', 'alice'], {cwd: a})
  t.equal(run.manifest, honest.manifest, 'the same experiment')
  t.equal(run.resumed, 0, 'nothing of mallory\'s is reused')
  t.equal(run.recorded, run.total)
  t.equal(run.success_rate, honest.success_rate, 'her signed numbers are what an honest run measures')
  const ws = new GitWorkspace(store)
  const authority = await loadAuthority(await store.ledger(), ws, {at: (await ws.resolve('HEAD'))!})
  t.match(authority.standing(run.evaluation), {ok: true}, 'and her signed evaluation stands')
  const cited = (await store.ledger()).get(run.evaluation)!.cites
  t.notOk(planted.some(p => cited.includes(p.id)), 'it cites none of the planted verifications')

  // her own episodes are hers to reuse: a second run (or a resumed one) runs nothing
  const again = await expJson<RunOut>(['run', 'validation', '--lane', 'alice'], {cwd: a})
  t.match(again, {resumed: run.total, recorded: 0, evaluation: run.evaluation})
})

t.test('with signed evidence, episodes a trusted evaluation pins are reused by any lane; without signing, any that replay', async t => {
  const keys = tempDir(t)
  const ci = keypair(keys, 'ci')
  const a = await signedPolicyRepo(t, [['ci@exp', ci.pub]])
  await git(a, 'config', 'exp.signingKey', ci.key)
  const signed = await expJson<RunOut>(['run', 'validation', '--lane', 'ci'], {cwd: a})
  t.equal(signed.recorded, signed.total)

  // a clone without the key, after fetching the lanes: the signed run's episodes stand behind a trusted signature
  const c = path.join(tempDir(t), 'c')
  await git(path.dirname(c), 'clone', '-q', a, c)
  await git(c, 'fetch', '-q', a, 'refs/research/lanes/*:refs/research/lanes/*')
  const carol = await expJson<RunOut>(['run', 'validation', '--lane', 'carol'], {cwd: c})
  t.match(carol, {manifest: signed.manifest, resumed: signed.total, recorded: 0, success_rate: signed.success_rate})

  // carol's run is unsigned: under signing it vouches for nothing, so a further lane runs its own
  // episodes; the run of a new experiment (another seed) shows it without the signed lane in the way
  const d = path.join(tempDir(t), 'd')
  await git(path.dirname(d), 'clone', '-q', a, d)
  const dave = await expJson<RunOut>(['run', 'validation', '--lane', 'dave', '--seed', '7'], {cwd: d})
  t.equal(dave.recorded, dave.total)
  await git(a, 'fetch', '-q', d, 'refs/research/lanes/dave:refs/research/lanes/dave')
  const erin = await expJson<RunOut>(['run', 'validation', '--lane', 'erin', '--seed', '7'], {cwd: a})
  // (she runs each episode herself; as the agent is deterministic, hers are dave's records byte for byte, so nothing new is written)
  t.match(erin, {manifest: dave.manifest, resumed: 0, success_rate: dave.success_rate}, 'an unsigned lane\'s episodes are not reused')

  // the same without signing: what replays is reused, whoever recorded it (docs/trust.md)
  const policy = path.join(a, '.research/policy.yaml')
  fs.writeFileSync(policy, fs.readFileSync(policy, 'utf8').replace('require_signed_evidence: true', 'require_signed_evidence: false'))
  await git(a, 'commit', '-qam', 'no signing')
  const frank = await expJson<RunOut>(['run', 'validation', '--lane', 'frank', '--seed', '7'], {cwd: a})
  t.match(frank, {manifest: dave.manifest, resumed: dave.total, recorded: 0})
})

// Found by an attack sweep (41): with signed evidence, a run admitted a reused episode by its
// verification id only, and took whichever copy of the id comes first in ledger order: another
// lane's copies under a signed run's ids (other bytes, failing, at Lamport 1) were reused, and
// the next trusted run signed an evaluation that pinned them (14/25 became 1/25). And a copy
// naming another repetition than its id's place was reused in that place.
t.test("with signed evidence, another lane's copies under a signed run's verification ids are not reused: the copy the evaluation pins is", async t => {
  const keys = tempDir(t)
  const ci = keypair(keys, 'ci')
  const a = await signedPolicyRepo(t, [['ci@exp', ci.pub]])
  await git(a, 'config', 'exp.signingKey', ci.key)
  const signed = await expJson<RunOut>(['run', 'validation', '--lane', 'ci'], {cwd: a})
  const store = await GitRecordStore.open(a)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const pinnedIds = ledger.get(signed.evaluation)!.cites.filter(c => c.startsWith('vr-'))
  t.equal(pinnedIds.length, signed.total)
  // mallory: for each of them a copy of its own (the trace of another place of the run, and a
  // verdict that says so, under the id), at Lamport 1
  const {rawCommit} = await import('../helpers/raw-record.js')
  const vs = pinnedIds.map(id => ledger.load<'verification'>(ledger.get(id)!))
  for (const [i, v] of vs.entries()) {
    const other = vs[(i + 1) % vs.length]!
    rawCommit(a, `mallory-${i}`, 1, {kind: 'verification', key: v.key as string, body: {...other.body}, cites: [...other.cites]})
  }
  await store.close()
  const fresh = await GitRecordStore.open(a)
  t.teardown(() => fresh.close())
  const shownFirst = (await fresh.ledger()).get(pinnedIds[0]!)!
  t.match(shownFirst.lane, /^mallory-/, "mallory's copy is the one the ledger shows")
  // bob, with the trusted key, runs the experiment again: he reuses the signed run's own copies
  const bob = await expJson<RunOut>(['run', 'validation', '--lane', 'bob'], {cwd: a})
  t.match(bob, {manifest: signed.manifest, resumed: signed.total, recorded: 0, success_rate: signed.success_rate})
  t.equal(bob.evaluation, signed.evaluation, 'the same evaluation: the same copies')
})

// Found by the same sweep: reuse took a copy under a place's verification id without checking it
// is of that place; copies under every repetition's ids, each the repetition-0 episode of its
// scenario (it replays), were reused and counted once each, and the miner's anchors then covered
// a third of the places.
t.test("without signing too, a copy under a place's verification id that is another place's episode is not reused there", async t => {
  const {exampleTrained} = await import('../helpers/cli-fixtures.js')
  const {rawCommit} = await import('../helpers/raw-record.js')
  const repo = await exampleTrained(t, 2)
  const honest = await expJson<RunOut>(['run', 'train', '--repeat', '2', '--lane', 'me'], {cwd: repo})
  const vs = await expJson<{id: string; key: string; lane: string; cites: string[]; body: {scenario: string; repetition?: number}}[]>(['ledger', '--kind', 'verification', '--lane', 'me', '--json'], {cwd: repo})
  const first = new Map(vs.filter(v => (v.body.repetition ?? 0) === 0).map(v => [v.body.scenario, v]))
  let planted = 0
  for (const v of vs.filter(v => v.body.repetition === 1)) {
    const zero = first.get(v.body.scenario)!
    rawCommit(repo, `mallory-${planted}`, 1, {kind: 'verification', key: v.key, body: {...(zero.body as object)} as never, cites: [...zero.cites]})
    planted++
  }
  t.ok(planted > 10, `${planted} copies planted`)
  for (const lane of ['me', 'b']) {
    const again = await expJson<RunOut>(['run', 'train', '--repeat', '2', '--lane', lane], {cwd: repo})
    t.match(again, {manifest: honest.manifest, resumed: honest.total, recorded: 0, success_rate: honest.success_rate}, `${lane}: every place reused, each from its own episode`)
    t.equal(again.evaluation, honest.evaluation, `${lane}: the evaluation of the honest episodes`)
  }
})
