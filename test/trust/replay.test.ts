import t from 'tap'
import path from 'node:path'
import {ROOT} from '../helpers/cli.js'
import {MemoryRecordStore, type Ledger} from '../../src/store/index.js'
import {runEvaluation} from '../../src/evals/runner/run.js'
import {loadScenarioDir} from '../../src/scenarios/index.js'
import type {Scenario} from '../../src/scenarios/types.js'
import {replayEpisode} from '../../src/evals/evaluator/world.js'
import {episodeDrafts} from '../../src/evals/runner/records.js'
import {worldEvaluator} from '../../src/evals/evaluator/world.js'
import {loadAgent} from '../../src/agents/registry.js'
import {Authority} from '../../src/trust/authority.js'
import {trustSettings} from '../../src/trust/types.js'
import type {EvaluationBody, TraceBody, VerificationBody} from '../../src/records/types.js'
import {canonicalJson} from '../../src/records/canonical.js'

const DIR = path.join(ROOT, 'scenarios')
let scenarios: Map<string, Scenario>
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T

async function recorded(): Promise<{store: MemoryRecordStore; ledger: Ledger; evaluation: string; manifest: string}> {
  scenarios ??= new Map((await loadScenarioDir(DIR)).flatMap(f => (f.scenario ? [[f.scenario.id, f.scenario] as const] : [])))
  const store = new MemoryRecordStore()
  const r = await runEvaluation(store, {split: 'validation', agent: 'scripted', scenariosDir: DIR, skillsDir: path.join(ROOT, 'skills'), cwd: ROOT, lane: 'me', repeat: 1})
  return {store, ledger: await store.ledger(), evaluation: r.evaluation, manifest: r.manifest}
}

function episodes(ledger: Ledger): {trace: TraceBody; verification: VerificationBody}[] {
  return ledger.select({kinds: ['verification']}).map(e => {
    const v = ledger.load<'verification'>(e).body as VerificationBody
    return {verification: v, trace: ledger.load<'trace'>(ledger.get(v.trace)!).body as TraceBody}
  })
}

t.test('every recorded episode replays in a fresh world to its verdict; a changed result, argument or verdict does not', async t => {
  const {ledger} = await recorded()
  const all = episodes(ledger)
  t.equal(all.length, [...scenarios.values()].filter(s => s.split === 'validation').length)
  for (const {trace, verification} of all) t.same(replayEpisode(trace, verification, scenarios.get(trace.scenario)!), {ok: true}, `${trace.scenario} replays`)
  const withCalls = all.find(x => x.trace.actions.some(a => a.ok && a.result && typeof a.result === 'object'))!
  const i = withCalls.trace.actions.findIndex(a => a.ok && a.result && typeof a.result === 'object')
  const s = scenarios.get(withCalls.trace.scenario)!
  const result = clone(withCalls.trace)
  result.actions[i]!.result = {forged: true}
  t.match(replayEpisode(result, withCalls.verification, s), {ok: false, reason: /result differs/})
  const args = clone(withCalls.trace)
  args.actions[0]!.arguments = {...args.actions[0]!.arguments, employee_id: 'E-9999', name: 'Nobody', query: 'x'}
  t.match(replayEpisode(args, withCalls.verification, s), {ok: false})
  const verdict = clone(withCalls.verification)
  verdict.passed = !verdict.passed
  t.match(replayEpisode(withCalls.trace, verdict, s), {ok: false, reason: /re-grading gives another passed/})
  const shorter = clone(withCalls.trace)
  shorter.actions.pop()
  t.match(replayEpisode(shorter, withCalls.verification, s), {ok: false})
  t.match(replayEpisode(withCalls.trace, withCalls.verification, [...scenarios.values()].find(x => x.id !== s.id)!), {ok: false, reason: /not/})
})

t.test('a held-out trace records its task only as tokens, and replays with the scenario', async t => {
  scenarios ??= new Map((await loadScenarioDir(DIR)).flatMap(f => (f.scenario ? [[f.scenario.id, f.scenario] as const] : [])))
  const s = scenarios.get('hold-onboard-and-ticket')!
  const agent = await loadAgent('scripted')
  const skill = {name: 'onboarding', content: (await import('node:fs')).readFileSync(path.join(ROOT, 'skills/onboarding/SKILL.md'), 'utf8')}
  const r = await worldEvaluator.judge({scenario: s, agent, skills: [skill], seed: 1})
  const d = episodeDrafts(r, {manifest: 'mf-' + '0'.repeat(24), agent: {name: 'scripted'}, skill: {name: 'onboarding', blob: '0'.repeat(40)}, sealTask: true})
  const text = canonicalJson([d.trace.body, d.verification.body])
  t.notOk(text.includes(s.task.trim()), 'the task is nowhere in the records')
  t.ok(canonicalJson(r).includes(s.task.trim().split('.')[0]!), 'though the episode itself used it (the agent copied it into a call)')
  t.equal(d.trace.body.sealed_task, true)
  t.same(replayEpisode(d.trace.body, d.verification.body, s), {ok: true}, 'it replays once the text is put back')
})

t.test('the trust checks: numbers from nowhere, numbers that do not add up, another evaluator, a comparison that does not recompute', async t => {
  const {store, evaluation, manifest} = await recorded()
  const ledger = await store.ledger()
  const real = ledger.load<'evaluation'>(ledger.get(evaluation)!).body as EvaluationBody
  const cites = [...ledger.get(evaluation)!.cites]
  const add = async (body: EvaluationBody, c: string[]) => (await store.append({kind: 'evaluation', body, cites: c}, {lane: 'mallory'})).id
  const nowhere = await add({...real, passed: real.total, failed: 0, success_rate: 1, ci: [0.806391, 1]}, [manifest])
  const lied = await add({...real, passed: real.passed + 1, failed: real.failed - 1, success_rate: (real.passed + 1) / real.total}, cites)
  const other = await add({...real, evaluator: {id: 'command:mine', version: '1', digest: real.evaluator!.digest}}, cites)
  const cmp = await add({...real, comparison: {baseline: evaluation, wins: 3, losses: 0, ties: 13, mcnemar_p: 0.25, diff: 0.1875, bootstrap_ci: [0, 0.4], regressions: [], scores_baseline: real.scores, scores_candidate: real.scores}}, cites)
  const a = new Authority(await store.ledger(), {settings: trustSettings(undefined)})
  t.match(a.standing(evaluation), {ok: true, level: 'verified'}, 'the real one stands')
  t.match(a.standing(nowhere), {ok: false, class: 'inconsistent_evaluation'})
  t.match(a.standing(lied), {ok: false, class: 'inconsistent_evaluation', reason: /Wilson interval|does not recompute/})
  const liedBetter = await add({...real, passed: real.passed + 1, failed: real.failed - 1, success_rate: (real.passed + 1) / real.total, ci: [0.321, 0.749]}, cites)
  t.match(a.standing(other), {ok: false, class: 'foreign_evaluator'})
  t.match(a.standing(cmp), {ok: false, class: 'inconsistent_evaluation', reason: /not another skill|paired comparison/})
  const forgedNoCites = await add({...real}, [manifest])
  const b = new Authority(await store.ledger(), {settings: trustSettings(undefined)})
  t.match(b.standing(forgedNoCites), {ok: false, class: 'forged_evaluation', reason: /cites no verification/})
  t.match(b.standing(liedBetter), {ok: false, class: 'inconsistent_evaluation'})
  t.same(b.problems().map(p => p.id).sort(), [nowhere, lied, other, cmp, forgedNoCites, liedBetter].sort(), 'problems() lists exactly these')
})
