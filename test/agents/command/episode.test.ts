import t from 'tap'
import {createCommandAgent} from '../../../src/agents/command/index.js'
import {recordingTools} from '../../helpers/agents.js'
import {echoAgent, episode, misbehaving} from '../../helpers/command.js'

t.test('the example agent calls tools through the invoker and answers', async t => {
  const tools = recordingTools()
  const out = await episode(t, echoAgent, {}, {}, tools.invoke)
  t.equal(out.invalid, undefined)
  t.match(out.finalAnswer, /^echo: Onboard E-104 with a laptop\. \(search found .*; employee E-104 exists\)$/)
  t.same(tools.calls.map(c => [c.tool, c.callId]), [['search_documents', 'c1'], ['get_employee', 'c2']])
  t.same(tools.calls[1]!.arguments, {employee_id: 'E-104'})
  t.same(out.usage, {tokensIn: 'Onboard E-104 with a laptop.'.length, tokensOut: 0})
  t.same(out.messages.map(m => m.role), ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
  t.match(out.messages[0]!.content, /IT onboarding assistant[\s\S]*# Skill: onboarding/)
  t.same(out.messages[2]!.tool_calls, [{id: 'c1', type: 'function', function: {name: 'search_documents', arguments: '{"query":"Onboard E-104 with a laptop."}'}}])
  t.same(JSON.parse(out.messages[5]!.content), {ok: true, result: {id: 'E-104', name: 'Ada'}})
})

t.test('a final answer written just before exit is not lost', async t => {
  const out = await episode(t, misbehaving('final-then-exit'))
  t.equal(out.invalid, undefined)
  t.equal(out.finalAnswer, 'quick')
})

t.test('a long answer split over many pipe chunks arrives whole', async t => {
  const out = await episode(t, misbehaving('big-final'))
  t.equal(out.finalAnswer?.length, 200_000)
})

t.test('an agent that lingers after its answer keeps the answer and is killed', async t => {
  const out = await episode(t, misbehaving('final-then-linger'))
  t.equal(out.invalid, undefined)
  t.equal(out.finalAnswer, 'done, but staying')
})

t.test('a program that cannot start is a spawn failure', async t => {
  const out = await episode(t, '/nonexistent/agent --x')
  t.match(out.invalid!.reason, /^spawn: cannot start "\/nonexistent\/agent": .*ENOENT/)
})

t.test('the runner can cancel an episode', async t => {
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 100)
  const out = await episode(t, misbehaving('hang'), {}, {signal: ac.signal})
  t.match(out.invalid!.reason, /^aborted/)
  const pre = new AbortController()
  pre.abort()
  t.match((await episode(t, echoAgent, {}, {signal: pre.signal})).invalid!.reason, /^aborted: cancelled before start/)
})

t.test('a throwing tool invoker is our bug, reported as tool_error', async t => {
  const out = await episode(t, echoAgent, {}, {}, async () => {
    throw new Error('world exploded')
  })
  t.match(out.invalid!.reason, /^tool_error: tool invoker failed on search_documents: world exploded/)
})

t.test('a bad command line is refused up front with a typed error', async t => {
  t.throws(() => createCommandAgent(`node 'x`), {code: 'E_AGENT_SPEC', exit: 2})
  t.throws(() => createCommandAgent('  '), {code: 'E_AGENT_SPEC'})
  t.equal(createCommandAgent('node a.mjs').name, 'command:node a.mjs')
})
