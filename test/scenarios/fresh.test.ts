import t from 'tap'
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {ScriptedAgent} from '../../src/agents/scripted/index.js'
import type {SkillText} from '../../src/agents/types.js'
import {runSplit} from '../../src/evals/split.js'
import {lintScenarios, loadScenarios, type Scenario} from '../../src/scenarios/index.js'
import type {KnowledgeBody} from '../../src/records/types.js'
import {expJson} from '../helpers/cli.js'
import {git} from '../helpers/repo.js'
import {evolvedExample} from '../helpers/evolve.js'
import {ROOT, INITIAL} from '../helpers/scenarios.js'

// The generalization check the project owns (docs/scenarios.md, "A fresh set"): scenarios
// written from docs/scenarios.md alone, with other people, departments and devices, that the
// loop never reads. The skill `exp evolve` learns on the built-in example must do much better
// on them than the initial skill, and no routine (control) scenario may get worse.
const FRESH = path.join(ROOT, 'test/fixtures/scenarios-fresh')
const REPS = 20
const fresh = await loadScenarios(FRESH)
const agent = new ScriptedAgent()

async function rates(skill: SkillText, scenarios: readonly Scenario[]) {
  const r = await runSplit(scenarios, {agent, skills: [skill], repetitions: REPS, seed: 1})
  return {rate: r.rate, by: Object.fromEntries(Object.entries(r.byScenario).map(([id, s]) => [id, s.passed / s.episodes]))}
}

t.test('the fresh set lints clean and never shares an id, a person or a department name with the built-in set', async t => {
  const report = await lintScenarios(FRESH)
  t.same(report.problems, [])
  t.ok(report.scenarios >= 20, `${report.scenarios} fresh scenarios`)
  const builtin = await loadScenarios(path.join(ROOT, 'scenarios'))
  const ids = new Set(builtin.map(s => s.id))
  for (const s of fresh) t.notOk(ids.has(s.id), s.id)
  t.ok(fresh.some(s => JSON.stringify(s.initial).includes('"departments.')), 'new departments')
  t.ok(fresh.some(s => JSON.stringify(s.initial).includes('"devices.')), 'new device models')
  t.ok(fresh.filter(s => s.workflows.includes('control')).length >= 4, 'control scenarios')
})

t.test('after exp evolve on the built-in example, the evolved skill beats the initial one on the fresh set by 25 points, and no control scenario regresses', async t => {
  // the acceptance run of test/loop/acceptance.test.ts (built once, shared)
  const {repo} = await evolvedExample(t)
  const evolved: SkillText = {name: 'onboarding', content: await git(repo, 'show', 'main:skills/onboarding/SKILL.md')}
  t.not(evolved.content, INITIAL().content)
  const before = await rates(INITIAL(), fresh)
  const after = await rates(evolved, fresh)
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  t.comment(`fresh set (${fresh.length} scenarios x ${REPS}): initial ${pct(before.rate)}, evolved ${pct(after.rate)}`)
  t.ok(after.rate - before.rate >= 0.25, `evolved - initial = ${((after.rate - before.rate) * 100).toFixed(1)} points`)
  for (const s of fresh.filter(s => s.workflows.includes('control'))) t.ok(after.by[s.id]! >= before.by[s.id]!, `control ${s.id}: ${pct(before.by[s.id]!)} -> ${pct(after.by[s.id]!)}`)

  // no rule is promoted whose counterexamples its conditions do not explain
  const decisions = await expJson<{body: {verdict: string; proposal: string}}[]>(['ledger', '--kind', 'decision'], {cwd: repo})
  const proposals = new Map((await expJson<{id: string; body: {knowledge: string[]}}[]>(['ledger', '--kind', 'proposal'], {cwd: repo})).map(p => [p.id, p.body]))
  const knowledge = new Map((await expJson<{id: string; body: KnowledgeBody}[]>(['ledger', '--kind', 'knowledge'], {cwd: repo})).map(k => [k.id, k.body]))
  const promoted = decisions.filter(d => d.body.verdict === 'accept').flatMap(d => proposals.get(d.body.proposal)!.knowledge)
  t.ok(promoted.length > 0)
  for (const id of promoted) t.same(knowledge.get(id)!.unexplained, [], `${knowledge.get(id)!.claim.text}: every counterexample explained`)
})

t.test('the loop never reads the fresh set: nothing in src/ names its folder', async t => {
  const files = readdirSync(path.join(ROOT, 'src'), {recursive: true, encoding: 'utf8'}).filter(f => f.endsWith('.ts'))
  t.ok(files.length > 100)
  t.same(files.filter(f => readFileSync(path.join(ROOT, 'src', f), 'utf8').includes('scenarios-fresh')), [])
})
