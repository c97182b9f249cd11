import t from 'tap'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {validate} from 'skills-ref'
import {parse} from 'yaml'
import {ScriptedAgent} from '../../src/agents/scripted/index.js'
import {parseRules, renderRule} from '../../src/knowledge/index.js'
import {runSplit} from '../../src/evals/index.js'
import type {SkillText} from '../../src/agents/types.js'
import {builtinScenarios, EXPERT, INITIAL, ROOT} from '../helpers/scenarios.js'

// The benchmark's hard targets (docs/scripted-agent.md): a weak initial skill, a reachable
// expert skill, and a learnable path in between, one rule at a time.
const scenarios = await builtinScenarios()
const agent = new ScriptedAgent()
const REPS = 10
const memo = new Map<string, number>()
async function rate(skills: SkillText[], split: 'train' | 'validation' | 'holdout'): Promise<number> {
  const key = `${split}\n${skills.map(s => s.content).join('\n')}`
  if (!memo.has(key)) memo.set(key, (await runSplit(scenarios, {agent, skills, split, repetitions: REPS, seed: 1})).rate)
  return memo.get(key)!
}
const pct = (x: number) => `${(x * 100).toFixed(1)}%`

t.test('the initial and expert skills are valid Agent Skills; the initial one has its PURPOSE.yaml', async t => {
  t.same(await validate(path.join(ROOT, 'skills/onboarding')), [])
  t.same(await validate(path.join(ROOT, 'test/fixtures/skills/onboarding-expert')), [])
  for (const section of ['\n# ', '\n## Objective\n', '\n## Procedure\n1. ', '\n## Failure handling\n']) t.ok(INITIAL().content.includes(section), section.trim())
  const purpose = parse(readFileSync(path.join(ROOT, 'skills/onboarding/PURPOSE.yaml'), 'utf8'))
  t.same(purpose, {skill: 'onboarding', version: 1, derived_from: [], proposed_by: {human: 'initial'}, evaluation: {}, status: 'accepted'})
})

t.test('the initial skill holds no rule the scripted agent understands', async t => {
  t.same(parseRules(INITIAL().content), [])
})

t.test('with the initial skill, holdout success is between 30% and 60%', async t => {
  const r = await rate([INITIAL()], 'holdout')
  t.comment(`initial holdout ${pct(r)}`)
  t.ok(r >= 0.3 && r <= 0.6, pct(r))
})

t.test('with the expert skill, success is at least 90% on validation and holdout', async t => {
  for (const split of ['validation', 'holdout'] as const) {
    const r = await rate([EXPERT()], split)
    t.comment(`expert ${split} ${pct(r)}`)
    t.ok(r >= 0.9, `${split} ${pct(r)}`)
  }
})

t.test('each expert rule added alone to the initial skill raises train and validation success', async t => {
  const base = {train: await rate([INITIAL()], 'train'), validation: await rate([INITIAL()], 'validation')}
  t.comment(`initial train ${pct(base.train)} validation ${pct(base.validation)}`)
  const rules = parseRules(EXPERT().content)
  t.equal(rules.length, 15)
  for (const rule of rules) {
    const line = renderRule(rule)
    const skills = [{name: 'onboarding', content: `${INITIAL().content}\n- ${line}\n`}]
    const train = await rate(skills, 'train')
    const validation = await rate(skills, 'validation')
    t.comment(`+ ${line}  train ${pct(train)} validation ${pct(validation)}`)
    t.ok(train > base.train, `train rises with: ${line}`)
    t.ok(validation > base.validation, `validation rises with: ${line}`)
  }
})

t.test('adding the expert rules one after another raises train and validation success at every step', async t => {
  const rules = parseRules(EXPERT().content).map(renderRule)
  let prev = {train: await rate([INITIAL()], 'train'), validation: await rate([INITIAL()], 'validation')}
  for (let k = 1; k <= rules.length; k++) {
    const skills = [{name: 'onboarding', content: `${INITIAL().content}\n${rules.slice(0, k).map(l => `- ${l}`).join('\n')}\n`}]
    const next = {train: await rate(skills, 'train'), validation: await rate(skills, 'validation')}
    t.comment(`${k} rule(s): train ${pct(next.train)} validation ${pct(next.validation)}`)
    t.ok(next.train > prev.train && next.validation > prev.validation, `rule ${k}: ${rules[k - 1]}`)
    prev = next
  }
})
