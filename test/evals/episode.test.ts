import t from 'tap'
import {EventEmitter} from 'node:events'
import {ScriptedAgent} from '../../src/agents/scripted/index.js'
import type {Agent, AgentInput} from '../../src/agents/types.js'
import {runEpisode, SYSTEM_PROMPT} from '../../src/evals/index.js'
import {checkBody} from '../../src/records/validate.js'
import {digestOf} from '../../src/records/digest.js'
import {TOOL_SPECS} from '../../src/world/index.js'
import {builtinScenarios, EXPERT} from '../helpers/scenarios.js'

const scenarios = await builtinScenarios()
const byId = (id: string) => scenarios.find(s => s.id === id)!
const agent = new ScriptedAgent()

t.test('an episode yields everything a trace body and a verification body need', async t => {
  const r = await runEpisode({scenario: byId('train-shortage-onboard-engineer'), agent, skills: [EXPERT()], seed: 3, repetition: 1})
  const {verdict, ...trace} = r
  const traceBody = {...trace, manifest: 'mf-000000000000000000000000', agent: {name: agent.name, model: agent.model}, skill: {name: 'onboarding', blob: '0'.repeat(40)}}
  t.same(checkBody('trace', traceBody), [])
  const verification = {...verdict, trace: 'tr-000000000000000000000000', trace_digest: digestOf(trace), manifest: 'mf-000000000000000000000000', scenario: r.scenario, split: r.split, repetition: r.repetition}
  t.same(checkBody('verification', verification), [])
  t.equal(r.status, 'completed')
  t.ok(verdict.passed)
  t.equal(r.usage.tool_calls, r.actions.length)
  t.ok(r.usage.tokens_in > 0 && r.usage.latency_ms > 0)
})

t.test('actions chain their state digests from the initial to the final state, with a simulated clock', async t => {
  const r = await runEpisode({scenario: byId('train-onboard-engineer'), agent, skills: [], seed: 1})
  t.equal(r.actions[0]!.state_before, r.state_initial)
  t.equal(r.actions.at(-1)!.state_after, r.state_final)
  for (let i = 1; i < r.actions.length; i++) {
    t.equal(r.actions[i]!.state_before, r.actions[i - 1]!.state_after)
    t.ok(r.actions[i]!.timestamp > r.actions[i - 1]!.timestamp)
  }
  t.equal(r.actions[0]!.timestamp, '2026-03-02T09:00:00.000Z')
})

t.test('the same seed gives the same episode, byte for byte', async t => {
  for (const id of ['train-shortage-onboard-sales', 'hold-offboard-duplicate-ticket', 'val-ambiguous-onboarding']) {
    const a = await runEpisode({scenario: byId(id), agent, skills: [], seed: 42})
    const b = await runEpisode({scenario: byId(id), agent: new ScriptedAgent(), skills: [], seed: 42})
    t.equal(digestOf(a), digestOf(b), id)
  }
  const seen = new Set<string>()
  for (let seed = 0; seed < 12; seed++) seen.add(digestOf((await runEpisode({scenario: byId('train-shortage-onboard-sales'), agent, skills: [], seed})).actions.map(x => x.tool)))
  t.ok(seen.size > 1, 'different seeds sample different habits')
})

t.test('the agent receives only the system text, the skills, the task and the tool specs', async t => {
  let got: AgentInput | undefined
  const spy: Agent = {name: 'spy', async run(input) {
    got = input
    return {finalAnswer: 'nothing', messages: [], usage: {tokensIn: 0, tokensOut: 0}}
  }}
  const s = byId('train-ticket-vpn-duplicate')
  await runEpisode({scenario: s, agent: spy, skills: [EXPERT()], seed: 1})
  t.same(Object.keys(got!).sort(), ['skills', 'system', 'task', 'tools'])
  t.equal(got!.system, SYSTEM_PROMPT)
  t.equal(got!.task, s.task)
  t.equal(got!.tools, TOOL_SPECS)
  t.notMatch(JSON.stringify(got), s.id)
  t.notMatch(JSON.stringify(got), 'existing-ticket-updated', 'no invariant reaches the agent')
})

t.test('an agent that throws makes an invalid episode; one that loops is stopped at max steps', async t => {
  const crash: Agent = {name: 'crash', async run(_i, tools) {
    await tools({tool: 'get_inventory', arguments: {}})
    throw new Error('boom')
  }}
  const bad = await runEpisode({scenario: byId('train-onboard-engineer'), agent: crash, skills: [], seed: 1})
  t.same([bad.status, bad.invalid_reason, bad.verdict.valid, bad.verdict.outcome, bad.actions.length], ['invalid', 'agent error: boom', false, 'invalid', 1])
  const loop: Agent = {name: 'loop', async run(_i, tools, ctx) {
    for (;;) {
      if (ctx.signal?.aborted) break
      await tools({tool: 'get_inventory', arguments: {}})
    }
    return {finalAnswer: null, messages: [], usage: {tokensIn: 0, tokensOut: 0}}
  }}
  const cut = await runEpisode({scenario: byId('train-onboard-engineer'), agent: loop, skills: [], seed: 1, maxSteps: 5})
  t.same([cut.status, cut.actions.length, cut.verdict.passed], ['completed', 5, false])
  t.same(cut.verdict.constraint_violations.map(v => v.constraint), ['max_steps'])
})

t.test("the runner's signal cancels the agent's episode, and leaves no listener behind once the episode ended", async t => {
  const stop = new AbortController()
  const listening: Agent = {
    name: 'listening',
    async run(_input, _tools, ctx) {
      const signal = ctx.signal!
      return {finalAnswer: signal.aborted ? null : 'ok', messages: [], usage: {tokensIn: 0, tokensOut: 0}}
    },
  }
  for (let i = 0; i < 20; i++) await runEpisode({scenario: byId('train-onboard-engineer'), agent: listening, skills: [], seed: i, signal: stop.signal})
  t.equal(EventEmitter.getEventListeners(stop.signal, 'abort').length, 0, 'one signal serves every episode of a run')
  const waiting: Agent = {
    name: 'waiting',
    run: (_input, _tools, ctx) =>
      new Promise(resolve => ctx.signal!.addEventListener('abort', () => resolve({finalAnswer: null, messages: [], usage: {tokensIn: 0, tokensOut: 0}, invalid: {reason: 'aborted: cancelled by the runner'}}))),
  }
  const running = runEpisode({scenario: byId('train-onboard-engineer'), agent: waiting, skills: [], seed: 1, signal: stop.signal})
  stop.abort()
  t.equal((await running).invalid_reason, 'aborted: cancelled by the runner')
})
