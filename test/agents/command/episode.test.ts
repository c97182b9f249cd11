import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {isInfrastructure} from '../../../src/agents/invalid.js'
import {detectIsolation} from '../../../src/agents/command/sandbox.js'
import {COMMAND_DEFAULTS, createCommandAgent} from '../../../src/agents/command/index.js'
import {runEpisode, type EpisodeLimits} from '../../../src/agents/command/episode.js'
import {agentInput, childPids, context, recordingTools} from '../../helpers/agents.js'
import {echoAgent, episode, FAST, misbehaving} from '../../helpers/command.js'

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

// Found by a sweep: an episode whose sandbox could not be set up (the agent's copied files gone)
// was recorded as the agent's crash, never retried, and kept by a resumed run.
t.test("the sandbox wrapper's own setup failure (exit 97, `exp sandbox: …`) is a spawn failure, not the agent's crash", async t => {
  const run = (script: string, sandboxed: boolean) =>
    runEpisode({program: 'sh', args: ['-c', script], sandboxed}, {...COMMAND_DEFAULTS, ...FAST} as EpisodeLimits, agentInput(), recordingTools().invoke, context())
  const setup = 'echo "mount: /dev/shm/2: special device /x does not exist." >&2; echo "exp sandbox: cannot set aside /x" >&2; exit 97'
  t.match((await run(setup, true)).invalid!.reason, /^spawn: the agent's sandbox could not be set up \(exit 97\): exp sandbox: cannot set aside \/x/)
  t.match((await run(setup, false)).invalid!.reason, /^crash: exited with code 97/, 'without the wrapper, the program said it')
  const spoke = 'read l; echo \'{"type":"usage","tokens_in":1,"tokens_out":1}\'; echo "exp sandbox: cannot set aside /x" >&2; exit 97'
  t.match((await run(spoke, true)).invalid!.reason, /^crash: exited with code 97/, 'a program that wrote a line ran: its exit is its own')
  t.match((await run('echo oops >&2; exit 97', true)).invalid!.reason, /^crash: exited with code 97/)
  t.same(childPids(), [])
})

t.test("an episode started after the agent's copied files were removed is a spawn failure, retried, not a crash", {skip: !['namespace', 'userns'].includes(await detectIsolation()) && 'no mount namespaces on this machine'}, async t => {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-gone-'))
  t.teardown(() => fs.rmSync(repo, {recursive: true, force: true}))
  fs.mkdirSync(path.join(repo, 'ad'))
  fs.copyFileSync(path.resolve('examples/agents/echo-agent.mjs'), path.join(repo, 'ad', 'echo.mjs'))
  // (without tap's NODE_OPTIONS: its loader sits in node_modules, which the sandbox hides when the checkout is under /tmp)
  const agent = createCommandAgent(`/usr/bin/env -u NODE_OPTIONS ${process.execPath} ad/echo.mjs`, {...FAST, sandbox: {root: repo}})
  t.equal((await agent.run(agentInput(), recordingTools().invoke, context())).invalid, undefined)
  await agent.close!()
  const out = await agent.run(agentInput(), recordingTools().invoke, context())
  t.match(out.invalid!.reason, /^spawn: the agent's sandbox could not be set up \(exit 97\): exp sandbox: cannot set aside /)
  t.ok(isInfrastructure(out.invalid!.reason))
  t.same(childPids(), [])
})
