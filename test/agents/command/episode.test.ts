import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import t, {type Test as Tap} from 'tap'
import {createCommandAgent, type CommandAgentOptions} from '../../../src/agents/command/index.js'
import {invalidCode} from '../../../src/agents/invalid.js'
import type {AgentContext, AgentOutcome, ToolInvoker} from '../../../src/agents/types.js'
import {agentEnv, agentInput, childPids, context, recordingTools, running} from '../../helpers/agents.js'

// Real child processes throughout: the adapter's whole job is process handling.
const root = fileURLToPath(new URL('../../../', import.meta.url))
const node = `'${process.execPath}'`
const echoAgent = `${node} '${join(root, 'examples/agents/echo-agent.mjs')}'`
const misbehaving = (mode: string, ...rest: string[]) => `${node} '${join(root, 'test/fixtures/agents/misbehaving-agent.mjs')}' ${mode} ${rest.join(' ')}`
const FAST: CommandAgentOptions = {stepTimeoutMs: 5000, timeoutMs: 10_000, killGraceMs: 300, politeExitMs: 300, drainMs: 300, env: agentEnv()}

/** Runs one episode, then checks that no child of ours is left, zombie or alive. */
async function episode(t: Tap, command: string, opts: CommandAgentOptions = {}, ctx: Partial<AgentContext> = {}, invoke?: ToolInvoker): Promise<AgentOutcome> {
  const agent = createCommandAgent(command, {...FAST, ...opts})
  const out = await agent.run(agentInput(), invoke ?? recordingTools().invoke, context(ctx))
  t.same(childPids(), [], 'no child process left behind')
  return out
}

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

t.test('a crashing agent is invalid, with its exit code and stderr', async t => {
  const out = await episode(t, misbehaving('crash'))
  t.equal(out.finalAnswer, null)
  t.equal(invalidCode(out.invalid!.reason), 'crash')
  t.match(out.invalid!.reason, /exited with code 3.*stderr: boom: something broke/)
})

t.test('an agent killed by a signal is a crash', async t => {
  const out = await episode(t, misbehaving('signal'))
  t.match(out.invalid!.reason, /^crash: killed by signal SIGTERM/)
})

t.test('a silent agent hits the per-step timeout', async t => {
  const begin = Date.now()
  const out = await episode(t, misbehaving('hang'), {stepTimeoutMs: 200})
  t.match(out.invalid!.reason, /^step_timeout: agent silent for 200 ms/)
  t.ok(Date.now() - begin < 3000, 'does not wait for the episode limit')
})

t.test('a chatty agent that never answers hits the episode timeout', async t => {
  const out = await episode(t, misbehaving('chatty'), {timeoutMs: 2000, stepTimeoutMs: 5000})
  t.match(out.invalid!.reason, /^timeout: no final answer within 2000 ms/)
  t.ok(out.usage.tokensIn > 0, 'usage reported before the timeout is kept')
})

t.test('an agent that ignores SIGTERM is killed, grandchildren included', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'exp-agent-'))
  t.teardown(() => rmSync(dir, {recursive: true, force: true}))
  const pidFile = join(dir, 'pids')
  const out = await episode(t, misbehaving('stubborn', pidFile), {stepTimeoutMs: 1500, killGraceMs: 200})
  t.match(out.invalid!.reason, /^step_timeout/)
  const pids = readFileSync(pidFile, 'utf8').split(' ').map(Number)
  for (let i = 0; i < 50 && pids.some(running); i++) await new Promise(r => setTimeout(r, 20))
  t.same(pids.filter(running), [], 'agent and its child are gone')
})

t.test('malformed lines are protocol errors (episodes side by side)', async t => {
  const cases: [string, RegExp][] = [
    ['not-json', /^protocol: not JSON: "thinking about it\.\.\."/],
    ['unknown-type', /^protocol: unknown message type "thought"/],
    ['missing-fields', /^protocol: tool_call: "tool" must be/],
    ['duplicate-id', /^protocol: tool_call id "c1" used twice/],
    ['long-line', /^protocol: stdout line longer than 1000 bytes/],
  ]
  const agent = (mode: string) => createCommandAgent(misbehaving(mode), {...FAST, maxLineBytes: 1000})
  const outs = await Promise.all(cases.map(([mode]) => agent(mode).run(agentInput(), recordingTools().invoke, context())))
  cases.forEach(([mode, reason], i) => {
    t.match(outs[i]!.invalid?.reason, reason, mode)
    t.equal(outs[i]!.finalAnswer, null, mode)
  })
  t.same(outs[0]!.usage, {tokensIn: 1, tokensOut: 2}, 'usage before the bad line is kept')
  t.same(childPids(), [], 'no child process left behind')
})

t.test('more tool calls than maxSteps is invalid, and the extra call is never run', async t => {
  const tools = recordingTools()
  const out = await episode(t, misbehaving('loop'), {}, {maxSteps: 3}, tools.invoke)
  t.match(out.invalid!.reason, /^max_steps: more than 3 tool calls/)
  t.equal(tools.calls.length, 3)
})

t.test('an agent that exits cleanly without answering is eof', async t => {
  const out = await episode(t, misbehaving('eof'))
  t.match(out.invalid!.reason, /^eof: exited with code 0 without a final answer/)
})

t.test('an agent can give up with an error message', async t => {
  const out = await episode(t, misbehaving('give-up'))
  t.match(out.invalid!.reason, /^agent_error: "model endpoint unreachable"/)
})

t.test('a final answer written just before exit is not lost', async t => {
  const out = await episode(t, misbehaving('final-then-exit'))
  t.equal(out.invalid, undefined)
  t.equal(out.finalAnswer, 'quick')
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
