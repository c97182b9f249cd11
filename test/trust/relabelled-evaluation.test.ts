import t from 'tap'
import {expJson} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {oneIterationAsAlice} from '../helpers/evolve.js'
import {GitRecordStore} from '../../src/store/index.js'
import {hypotheses} from '../../src/projections/index.js'
import type {EvaluationBody, ProposalBody} from '../../src/records/types.js'

// Found by a review of the derived views: `exp promote` took only evaluations of a proposal's
// own head skill against its base (test/loop/promote-evidence.test.ts), but the views did not.
// Another lane wrote a hypothesis and a proposal of a skill that does not exist (head blob
// 000…), then copied an honest validation pair with `proposal` (and the candidate's
// comparison baseline) re-pointed at it: `exp hypotheses`, `exp frontier`, `exp graph` and
// `exp report` showed the proposal "supported" on another skill's runs, and `exp fsck` was clean.

t.test("another skill's evaluations re-pointed at a proposal support nothing, in no view, and fsck names them", async t => {
  const repo = await oneIterationAsAlice(t)

  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const honest = ledger.records({kinds: ['proposal']})[0]!
  const pair = (role: string) => ledger.records({kinds: ['evaluation']}).find(e => e.body.proposal === honest.id && e.body.split === 'validation' && e.body.role === role)!
  const [baseline, candidate] = [pair('baseline'), pair('candidate')]
  const lane = {lane: 'mallory'}
  const hy = (await store.append({kind: 'hypothesis', body: {statement: 'mallory: nothing was ever run for this', mechanism: 'm', expected_effect: {metric: 'success_rate', direction: 'increase'}, conditions: [], mechanism_family: 'f'}}, lane)).id
  const body: ProposalBody = {...honest.body, hypothesis: hy, reason: 'mallory', branch: 'exp/proposal/mallory-x', head: {...honest.body.head, skill_blob: '0'.repeat(40), commit: '1'.repeat(40)}}
  const pr = (await store.append({kind: 'proposal', body, cites: [hy]}, lane)).id
  const swap = (cites: readonly string[], map: Record<string, string>) => cites.map(c => map[c] ?? c)
  const b = (await store.append({kind: 'evaluation', body: {...baseline.body, proposal: pr}, cites: swap(baseline.cites, {[honest.id]: pr})}, lane)).id
  const cBody: EvaluationBody = {...candidate.body, proposal: pr, comparison: {...candidate.body.comparison!, baseline: b}}
  const c = (await store.append({kind: 'evaluation', body: cBody, cites: swap(candidate.cites, {[honest.id]: pr, [baseline.id]: b})}, lane)).id
  // taken on faith, the copies make the hypothesis supported
  t.equal(hypotheses(await store.ledger(), new Date()).find(h => h.id === hy)?.status, 'supported', 'unfiltered, the attack works')

  const [hyps, frontier, graph, report, fsck] = await expBatch([['hypotheses', '--json'], ['frontier', '--json', '--agent-id', 'bob'], ['graph', '--json'], ['report', '--json'], ['fsck', '--json']].map(args => ({args, cwd: repo})))
  const shown = JSON.parse(hyps!.stdout) as {id: string; status: string}[]
  t.equal(shown.find(h => h.id === hy)?.status, 'active', 'exp hypotheses: proposed on, never supported')
  t.match(hyps!.stderr, /1 evaluation\(s\) or decision\(s\) do not stand and were ignored/)
  const front = JSON.parse(frontier!.stdout) as {selected?: {hypothesis: string; allowed_action: string}; promotion_candidates: {hypothesis: string}[]}
  t.notOk(front.promotion_candidates.some(x => x.hypothesis === hy), 'exp frontier: not a promotion candidate')
  if (front.selected?.hypothesis === hy) t.equal(front.selected.allowed_action, 'run_dev_attempt', 'it still needs a validation run')
  t.notOk(graph!.stdout.includes(c), 'exp graph: the copied candidate is not a node')
  const model = JSON.parse(report!.stdout) as {skills: {iterations: {proposal: string; validation?: unknown}[]}[]}
  const it = model.skills[0]!.iterations.find(i => i.proposal === pr)
  t.ok(it, "the report shows mallory's proposal")
  t.notOk(it!.validation, 'without a validation it does not have')
  t.equal(fsck!.code, 5)
  const problems = (JSON.parse(fsck!.stdout) as {error: {data: {problems: {class?: string; id?: string; message?: string}[]}}}).error.data.problems
  t.match(problems.find(x => x.id === c), {class: 'forged_evaluation', message: new RegExp(`it is not an evaluation of ${pr}: its candidate is onboarding at blob [0-9a-f]{12}, not the proposal's head \\(onboarding at blob 000000000000\\)`)}, 'fsck names the copy')
  t.notOk(problems.some(x => x.id === b), 'the baseline copy judges the skill the proposal was made from: it stands')
  // the honest pair still counts
  t.equal((await expJson<{stands: {ok: boolean}}>(['inspect', candidate.id], {cwd: repo})).stands.ok, true)
})
