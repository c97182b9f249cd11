import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import t from 'tap'
import {createCommandAgent, type CommandAgentOptions} from '../../../src/agents/command/index.js'
import {invalidCode} from '../../../src/agents/invalid.js'
import type {AgentContext, AgentOutcome, ToolCall} from '../../../src/agents/types.js'
import {agentInput, childPids, context, recordingTools, running} from '../../helpers/agents.js'
import {episode, FAST, misbehaving} from '../../helpers/command.js'

interface Case {
  mode: string
  reason: RegExp
  opts?: CommandAgentOptions
  ctx?: Partial<AgentContext>
  also?: (out: AgentOutcome, calls: ToolCall[]) => void
}

// Every way an agent can end without a usable answer. The episodes run side by side (they
// are independent processes), which also shows that concurrent episodes do not mix up.
t.test('each early end becomes the right invalid outcome, and no process is left', async t => {
  const cases: Case[] = [
    {mode: 'crash', reason: /^crash: exited with code 3 before a final answer; stderr: boom: something broke/},
    {mode: 'signal', reason: /^crash: killed by signal SIGTERM/},
    {mode: 'hang', reason: /^step_timeout: agent silent for 200 ms/, opts: {stepTimeoutMs: 200}},
    {mode: 'chatty', reason: /^timeout: no final answer within 700 ms/, opts: {timeoutMs: 700}},
    {mode: 'eof', reason: /^eof: exited with code 0 without a final answer/},
    {mode: 'give-up', reason: /^agent_error: "model endpoint unreachable"/},
    {mode: 'not-json', reason: /^protocol: not JSON: "thinking about it\.\.\."/, also: out => t.same(out.usage, {tokensIn: 1, tokensOut: 2}, 'usage before the bad line is kept')},
    {mode: 'unknown-type', reason: /^protocol: unknown message type "thought"/},
    {mode: 'missing-fields', reason: /^protocol: tool_call: "tool" must be/},
    {mode: 'duplicate-id', reason: /^protocol: tool_call id "c1" used twice/},
    {mode: 'long-line', reason: /^protocol: stdout line longer than 1000 bytes/, opts: {maxLineBytes: 1000}},
    // (found by an attack sweep: one such answer made a trace over the store's record limit,
    // which stopped the whole run and every rerun)
    {mode: 'long-answer', reason: /^protocol: the agent's answer brings what it said in this episode to 614400 bytes, over the 262144 an episode records/},
    {mode: 'long-calls', reason: /^protocol: the agent's tool calls bring what it said in this episode to \d+ bytes, over the 262144/, also: (_, calls) => t.equal(calls.length, 2, 'the call past the limit is never run')},
    {mode: 'loop', reason: /^max_steps: more than 3 tool calls/, ctx: {maxSteps: 3}, also: (_, calls) => t.equal(calls.length, 3, 'the extra call is never run')},
  ]
  const outs = await Promise.all(cases.map(async c => {
    const tools = recordingTools()
    const out = await createCommandAgent(misbehaving(c.mode), {...FAST, ...c.opts}).run(agentInput(), tools.invoke, context(c.ctx))
    return {out, calls: tools.calls}
  }))
  cases.forEach((c, i) => {
    const {out, calls} = outs[i]!
    t.match(out.invalid?.reason, c.reason, c.mode)
    t.equal(out.finalAnswer, null, `${c.mode}: no answer`)
    t.ok(invalidCode(out.invalid?.reason ?? ''), `${c.mode}: a known reason code`)
    c.also?.(out, calls)
  })
  t.same(childPids(), [], 'no child process left behind')
})

t.test('an agent that ignores SIGTERM is killed, grandchildren included', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'exp-agent-'))
  t.teardown(() => rmSync(dir, {recursive: true, force: true}))
  const pidFile = join(dir, 'pids')
  const ac = new AbortController()
  const ending = episode(t, misbehaving('stubborn', pidFile), {killGraceMs: 200}, {signal: ac.signal})
  // end the episode only once the agent has started its own child
  const pidsNow = () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : '')
  while (!/^\d+ \d+$/.test(pidsNow())) await new Promise(r => setTimeout(r, 20))
  ac.abort()
  const out = await ending
  t.match(out.invalid!.reason, /^aborted/)
  const pids = pidsNow().split(' ').map(Number)
  for (let i = 0; i < 50 && pids.some(running); i++) await new Promise(r => setTimeout(r, 20))
  t.same(pids.filter(running), [], 'agent and its child are gone')
})
