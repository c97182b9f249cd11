import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {createAgent, loadAgent} from '../../src/agents/registry.js'
import {NO_RESPONSE, perturb, withNoise} from '../../src/agents/noise.js'
import type {Agent, ToolCall} from '../../src/agents/types.js'
import {runSplit} from '../../src/evals/split.js'
import {runEpisode} from '../../src/evals/episode.js'
import {loadScenarioDir} from '../../src/scenarios/load.js'
import {agentInput, context, recordingTools} from '../helpers/agents.js'

const ROOT = path.resolve(import.meta.dirname, '../..')

/** An agent that makes the same 40 calls every episode and remembers what it heard back. */
function fixedCaller(): Agent & {heard: string[]} {
  const heard: string[] = []
  return {
    name: 'fixed',
    heard,
    run: async (_input, tools) => {
      for (let i = 0; i < 40; i++) {
        const r = await tools({tool: 'get_employee', arguments: {employee_id: 'E-104'}})
        heard.push(r.ok ? 'ok' : r.error.code)
      }
      return {finalAnswer: 'done', messages: [], usage: {tokensIn: 0, tokensOut: 0}}
    },
  }
}

t.test('noise 0 is the agent itself: the same object, the same experiment', async t => {
  const inner = fixedCaller()
  t.equal(withNoise(inner, 0), inner)
  t.same((await loadAgent('scripted:noise=0')).params, (await loadAgent('scripted')).params, 'no noise field in the manifest')
})

t.test('slips happen at about the rate asked, of all three kinds, the same for the same episode', async t => {
  const inner = fixedCaller()
  const agent = withNoise(inner, 0.25)
  const seen: ToolCall[][] = []
  for (let seed = 0; seed < 50; seed++) {
    const {calls, invoke} = recordingTools()
    await agent.run(agentInput(), invoke, context({seed}))
    seen.push(calls)
  }
  const made = seen.flat()
  const dropped = inner.heard.filter(h => !NO_RESPONSE.ok && h === NO_RESPONSE.error.code).length
  const perturbed = made.filter(c => c.arguments.employee_id !== 'E-104').length
  const asked = 50 * 40
  // a repeat sends one call twice: made = asked - dropped + repeated
  const repeated = made.length - asked + dropped
  const rate = (dropped + perturbed + repeated) / asked
  t.ok(rate > 0.2 && rate < 0.3, `slip rate ${rate}`)
  t.ok(dropped > 50 && perturbed > 50 && repeated > 50, `drops ${dropped}, perturbations ${perturbed}, repeats ${repeated}`)
  const again = recordingTools()
  await agent.run(agentInput(), again.invoke, context({seed: 7}))
  t.same(again.calls, seen[7], 'the same seed and input: the same slips')
  const other = recordingTools()
  await agent.run(agentInput({skills: [{name: 'onboarding', content: '---\nname: onboarding\n---\nCheck the employee exists first. '}]}), other.invoke, context({seed: 7}))
  t.not(JSON.stringify(other.calls), JSON.stringify(seen[7]), 'a skill one byte longer slips differently')
})

t.test('a perturbation changes one argument, in a way that stays the same type', async t => {
  t.same(perturb({employee_id: 'E-109'}, 0), {employee_id: 'E-100'})
  t.same(perturb({model: 'laptop'}, 0), {model: 'lapto'})
  t.same(perturb({n: 3, flag: true}, 0), {n: 3, flag: false}, 'keys in order: flag first')
  t.same(perturb({n: 3, flag: true}, 0.9), {n: 4, flag: true})
  t.same(perturb({list: ['a']}, 0.5), {list: ['a']}, 'nothing to perturb')
})

t.test('the registry: scripted:noise=P and noise:P:SPEC, with clear errors', async t => {
  const a = await loadAgent('scripted:noise=0.1')
  t.equal(a.name, 'scripted')
  t.same(a.params?.noise, 0.1, 'the manifest pins the noise')
  const b = await loadAgent('noise:0.2:scripted')
  t.same(b.params?.noise, 0.2)
  t.equal(createAgent('noise:0.3:command:node x.mjs').name, 'command:node x.mjs', 'any agent spec')
  for (const bad of ['scripted:noise=', 'scripted:noise=1.5', 'scripted:noise=-0.1', 'scripted:noise=abc', 'noise:0.1', 'noise:x:scripted', 'scripted:fast']) t.throws(() => createAgent(bad), {code: 'E_AGENT_SPEC', exit: 2}, bad)
})

t.test('the scripted agent under noise: repeated episodes differ, the expert skill no longer always passes', async t => {
  const scenarios = (await loadScenarioDir(path.join(ROOT, 'scenarios'))).flatMap(f => (f.scenario ? [f.scenario] : []))
  const expert = fs.readFileSync(path.join(ROOT, 'test/fixtures/skills/onboarding-expert/SKILL.md'), 'utf8')
  const skills = [{name: 'onboarding', content: expert}]
  const clean = await runSplit(scenarios, {agent: await loadAgent('scripted'), skills, split: 'validation', repetitions: 4, seed: 3})
  const noisy = await runSplit(scenarios, {agent: await loadAgent('scripted:noise=0.1'), skills, split: 'validation', repetitions: 4, seed: 3})
  t.equal(clean.rate, 1)
  t.ok(noisy.rate < 0.95 && noisy.rate > 0.5, `expert under noise 0.1: ${noisy.rate}`)
  t.equal(noisy.invalid, 0, 'a slip is the agent failing, never an infrastructure failure')
  // the recorded episode replays: the slips are in what the world saw, nothing else
  const one = await runEpisode({scenario: scenarios.find(s => s.split === 'validation')!, agent: await loadAgent('scripted:noise=0.5'), skills, seed: 11})
  const twice = await runEpisode({scenario: scenarios.find(s => s.split === 'validation')!, agent: await loadAgent('scripted:noise=0.5'), skills, seed: 11})
  t.same(twice.actions, one.actions, 'deterministic per episode')
})
