import t from 'tap'
import {CARELESS, CAUTIOUS, LITERAL, PROFILES, ScriptedAgent} from '../../../src/agents/scripted/index.js'
import {createAgent, loadAgent} from '../../../src/agents/registry.js'
import {runSplit} from '../../../src/evals/split.js'
import {runEpisode} from '../../../src/evals/episode.js'
import {builtinScenarios, EXPERT, INITIAL} from '../../helpers/scenarios.js'
import {TOOL_SPECS} from '../../../src/world/index.js'

const rate = async (profile: string, content: string, split: 'validation' | 'holdout' = 'validation') =>
  (await runSplit(await builtinScenarios(), {agent: new ScriptedAgent({profile}), skills: [{name: 'onboarding', content}], split, repetitions: 3})).rate

t.test('the profiles differ measurably on the initial skill, and the expert skill lifts every one', async t => {
  const initial: Record<string, number> = {}
  const expert: Record<string, number> = {}
  for (const p of Object.keys(PROFILES)) {
    initial[p] = await rate(p, INITIAL().content)
    expert[p] = await rate(p, EXPERT().content)
  }
  const names = Object.keys(initial)
  for (const a of names) for (const b of names) if (a < b) t.ok(Math.abs(initial[a]! - initial[b]!) >= 0.03, `${a} ${initial[a]} vs ${b} ${initial[b]}`)
  t.ok(initial.cautious! > initial.naive! + 0.2 && initial.naive! > initial.careless! + 0.1 && initial.naive! > initial.literal! + 0.1, JSON.stringify(initial))
  for (const p of names) t.ok(expert[p]! > initial[p]!, `${p}: ${initial[p]} -> ${expert[p]}`)
  t.equal(expert.literal, 1, 'the literal agent follows every canonical rule')
  t.ok(expert.careless! < 0.95, `the careless agent forgets rules: ${expert.careless}`)
})

t.test('the literal agent follows a rule only in its canonical form; the others read it either way', async t => {
  // the same rules without their final period: still rules for the parser, not for a literal reader
  const unpunctuated = EXPERT().content.replace(/^(\d+\. .*)\.$/gm, '$1')
  t.not(unpunctuated, EXPERT().content)
  t.equal(await rate('literal', unpunctuated), await rate('literal', INITIAL().content))
  t.equal(await rate('naive', unpunctuated), await rate('naive', EXPERT().content))
  t.equal(await rate('cautious', unpunctuated), await rate('cautious', EXPERT().content))
})

t.test('the literal agent does what the tool specs say in words, and only where they say it', async t => {
  const sc = (await builtinScenarios()).filter(s => s.split === 'validation' && /grant|access|payroll|finance|prod-db/.test(JSON.stringify(s.task ?? s)))
  t.ok(sc.length > 0)
  const silent = TOOL_SPECS.map(x => (x.name === 'grant_access' ? {...x, description: x.description.replace(/,? ?so read the policy first/i, '')} : x))
  t.not(JSON.stringify(silent), JSON.stringify(TOOL_SPECS))
  let withSpec = 0
  let without = 0
  for (const s of sc) {
    for (const seed of [1, 2]) {
      const agent = new ScriptedAgent({profile: 'literal'})
      withSpec += (await runEpisode({scenario: s, agent, skills: [INITIAL()], seed})).actions.filter(a => a.tool === 'get_policy').length
      without += (await runEpisode({scenario: s, agent, skills: [INITIAL()], seed, tools: silent})).actions.filter(a => a.tool === 'get_policy').length
    }
  }
  t.ok(withSpec > 0, `reads the policy when grant_access says so (${withSpec})`)
  t.ok(without < withSpec, `reads it less when the spec is silent (${without} < ${withSpec})`)
})

t.test('profiles never read scenario ids: a scenario renamed plays the same', async t => {
  const sc = (await builtinScenarios()).filter(s => s.split === 'validation').slice(0, 6)
  for (const profile of [CARELESS, LITERAL, CAUTIOUS]) {
    for (const s of sc) {
      const agent = new ScriptedAgent({profile})
      const a = await runEpisode({scenario: s, agent, skills: [INITIAL()], seed: 7})
      const b = await runEpisode({scenario: {...s, id: `renamed-${s.id.length}`}, agent, skills: [INITIAL()], seed: 7})
      t.same(b.actions.map(x => [x.tool, x.arguments]), a.actions.map(x => [x.tool, x.arguments]), `${profile.name} on ${s.id}`)
    }
  }
})

t.test('agent specs: scripted:PROFILE pins the profile in the agent identity; plain scripted is unchanged', async t => {
  t.equal((await loadAgent('scripted')).params, undefined)
  for (const p of ['careless', 'literal', 'cautious']) t.same((await loadAgent(`scripted:${p}`)).params, {profile: p})
  t.throws(() => createAgent('scripted:sloppy'), {code: 'E_AGENT_SPEC', message: /no scripted profile named "sloppy"/})
  t.throws(() => new ScriptedAgent({profile: 'nope'}), /unknown scripted profile/)
})
