import t, {type Test} from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {createOpenAIAgent, type OpenAIAgentOptions} from '../../../src/agents/openai/index.js'
import type {AgentContext} from '../../../src/agents/types.js'
import {agentInput, context, recordingTools} from '../../helpers/agents.js'
import {completion, RETRY_NOW, startFakeLlm, type Script} from '../../helpers/fake-llm.js'

const KEY = 'sk-test-0123456789abcdef'

/** A model that looks E-104 up once, then answers. */
const twoTurns: Script = req => req.body.messages.some((m: {role: string}) => m.role === 'tool')
  ? {body: completion({content: 'E-104 is onboarded.'}, {prompt_tokens: 30, completion_tokens: 7})}
  : {body: completion({tool_calls: [{id: 'call_a', name: 'get_employee', arguments: '{"employee_id":"E-104"}'}]}, {prompt_tokens: 20, completion_tokens: 5})}

async function episode(t: Test, script: Script, opts: OpenAIAgentOptions = {}, ctx: Partial<AgentContext> = {}) {
  const llm = await startFakeLlm(script)
  t.teardown(() => llm.close())
  const agent = createOpenAIAgent('test-model', {baseURL: llm.baseURL, apiKey: KEY, maxRetries: 2, timeoutMs: 5000, env: {}, ...opts})
  const tools = recordingTools()
  const out = await agent.run(agentInput(), tools.invoke, context(ctx))
  return {out, llm, calls: tools.calls, agent}
}

t.test('tool calls run through the invoker until the model answers', async t => {
  const {out, llm, calls, agent} = await episode(t, twoTurns, {params: {temperature: 0}})
  t.equal(agent.name, 'openai:test-model')
  t.same(agent.params, {temperature: 0})
  t.equal(out.invalid, undefined)
  t.equal(out.finalAnswer, 'E-104 is onboarded.')
  t.same(calls, [{tool: 'get_employee', arguments: {employee_id: 'E-104'}, callId: 'call_a'}])
  t.same(out.usage, {tokensIn: 50, tokensOut: 12})
  t.same(out.messages.map(m => m.role), ['system', 'user', 'assistant', 'tool', 'assistant'])
  t.same(out.messages[3], {role: 'tool', tool_call_id: 'call_a', content: '{"ok":true,"result":{"id":"E-104","name":"Ada"}}'})

  t.equal(llm.requests.length, 2)
  const [first, second] = llm.requests as [typeof llm.requests[0], typeof llm.requests[0]]
  t.equal(first.url, '/v1/chat/completions')
  t.equal(first.headers.authorization, `Bearer ${KEY}`)
  t.match(first.body, {model: 'test-model', temperature: 0, seed: 7})
  t.match(first.body.messages[0].content, /IT onboarding assistant[\s\S]*# Skill: onboarding/)
  t.same(first.body.tools[1], {type: 'function', function: {name: 'get_employee', description: 'Look up one employee by id.', parameters: agentInput().tools[1]!.parameters}})
  t.same(second.body.messages[2].tool_calls, [{id: 'call_a', type: 'function', function: {name: 'get_employee', arguments: '{"employee_id":"E-104"}'}}])
  t.equal(second.body.messages[3].tool_call_id, 'call_a')
})

t.test('the server and key come from OPENAI_BASE_URL and OPENAI_API_KEY', async t => {
  const llm = await startFakeLlm(() => ({body: completion({content: 'hi'})}))
  t.teardown(() => llm.close())
  const agent = createOpenAIAgent('m', {env: {OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: KEY}, sendSeed: false})
  const out = await agent.run(agentInput({tools: []}), recordingTools().invoke, context())
  t.equal(out.finalAnswer, 'hi')
  t.equal(llm.requests[0]!.headers.authorization, `Bearer ${KEY}`)
  t.notOk('seed' in llm.requests[0]!.body, 'seed left out when asked')
  t.notOk('tools' in llm.requests[0]!.body, 'no empty tools list')
})

t.test('a 429 is retried, then the episode goes on', async t => {
  const {out, llm} = await episode(t, (req, i) => i === 0 ? {status: 429, headers: RETRY_NOW, body: {error: {message: 'slow down', type: 'rate_limit'}}} : twoTurns(req, i))
  t.equal(out.invalid, undefined)
  t.equal(out.finalAnswer, 'E-104 is onboarded.')
  t.equal(llm.requests.length, 3)
})

t.test('a request that times out is retried', async t => {
  const {out, llm} = await episode(t, (req, i) => ({...twoTurns(req, i), delayMs: i === 0 ? 1000 : 0}), {timeoutMs: 150, maxRetries: 1})
  t.equal(out.finalAnswer, 'E-104 is onboarded.')
  t.equal(llm.requests.length, 3)
})

t.test('a 500 after every retry is an invalid outcome, not a throw', async t => {
  const {out, llm} = await episode(t, () => ({status: 500, headers: RETRY_NOW, body: {error: {message: 'upstream exploded'}}}))
  t.equal(llm.requests.length, 3, 'one try and two retries')
  t.equal(out.finalAnswer, null)
  t.match(out.invalid!.reason, /^http: HTTP 500 upstream exploded/)
})

t.test('a body that is not JSON, or not a completion, is malformed_response', async t => {
  const broken = await episode(t, () => ({body: '{"choices": [ {"message": '}))
  t.match(broken.out.invalid!.reason, /^malformed_response: /)
  const wrong = await episode(t, () => ({body: {result: 'ok'}}))
  t.match(wrong.out.invalid!.reason, /^malformed_response: .*no choices\[0\]\.message/)
  const text = await episode(t, () => ({headers: {'content-type': 'text/html'}, body: '<html>proxy error</html>'}))
  t.match(text.out.invalid!.reason, /^malformed_response: .*got text "<html>/)
})

t.test('a model that never stops calling tools hits maxSteps', async t => {
  let n = 0
  const {out, calls} = await episode(t, () => ({body: completion({tool_calls: [{id: `c${++n}`, name: 'search_documents', arguments: '{"query":"again"}'}]})}), {}, {maxSteps: 3})
  t.match(out.invalid!.reason, /^max_steps: more than 3 tool calls/)
  t.equal(calls.length, 3)
})

t.test('arguments that are not a JSON object go back to the model as a tool error', async t => {
  const {out, calls, llm} = await episode(t, (req, i) => i === 0
    ? {body: completion({tool_calls: [{id: 'c1', name: 'get_employee', arguments: '{"employee_id": E-1'}]})}
    : {body: completion({content: 'sorry'})})
  t.equal(calls.length, 0, 'the invoker never saw the broken call')
  t.equal(out.finalAnswer, 'sorry')
  t.same(JSON.parse(llm.requests[1]!.body.messages[3].content), {ok: false, error: {code: 'E_BAD_ARGUMENTS', message: 'arguments are not a JSON object'}})
})

t.test('arguments nested more than 64 levels deep go back to the model as a tool error, never to the invoker', async t => {
  const deep = `{"x":${'['.repeat(3000)}${']'.repeat(3000)}}`
  const {out, calls, llm} = await episode(t, (req, i) => i === 0
    ? {body: completion({tool_calls: [{id: 'c1', name: 'get_employee', arguments: deep}]})}
    : {body: completion({content: 'sorry'})})
  t.equal(calls.length, 0, 'the invoker never saw the call')
  t.equal(out.finalAnswer, 'sorry')
  t.same(JSON.parse(llm.requests[1]!.body.messages[3].content), {ok: false, error: {code: 'E_BAD_ARGUMENTS', message: 'arguments are nested more than 64 levels deep'}})
})

t.test('a cancelled episode is invalid: aborted', async t => {
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 50)
  const {out} = await episode(t, () => ({body: completion({content: 'late'}), delayMs: 2000}), {}, {signal: ac.signal})
  t.match(out.invalid!.reason, /^aborted/)
})


t.test('an episode has one deadline: slow replies, each within the request timeout, end it as timeout', async t => {
  let n = 0
  const began = Date.now()
  // every reply comes in 150 ms, well within the 5 s per request, and asks for another tool call
  const {out, llm} = await episode(t, () => ({body: completion({tool_calls: [{id: `c${++n}`, name: 'search_documents', arguments: '{"query":"more"}'}]}), delayMs: 150}), {episodeTimeoutMs: 700})
  t.match(out.invalid!.reason, /^timeout: no final answer within 700 ms/)
  t.ok(llm.requests.length >= 2 && llm.requests.length <= 6, `a few requests, then the deadline (${llm.requests.length})`)
  t.ok(Date.now() - began < 3000, 'the episode ended near its deadline')
})

t.test('a server that never answers is cut off at the episode deadline, not after every retry', async t => {
  const began = Date.now()
  const {out} = await episode(t, () => ({body: completion({content: 'too late'}), delayMs: 2600}), {episodeTimeoutMs: 400, timeoutMs: 5000, maxRetries: 3})
  t.match(out.invalid!.reason, /^timeout: no final answer within 400 ms/)
  t.ok(Date.now() - began < 2500, `ended near 400 ms (${Date.now() - began} ms)`)
})

t.test('a throwing tool invoker is our bug, reported as tool_error', async t => {
  const llm = await startFakeLlm(twoTurns)
  t.teardown(() => llm.close())
  const agent = createOpenAIAgent('m', {baseURL: llm.baseURL, env: {}})
  const out = await agent.run(agentInput(), async () => {
    throw new Error('world exploded')
  }, context())
  t.match(out.invalid!.reason, /^tool_error: tool invoker failed on get_employee: world exploded/)
})

/** A response cache folder of the test's own, removed after it. */
function tempCache(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-llm-cache-'))
  t.teardown(() => fs.rmSync(dir, {recursive: true, force: true}))
  return dir
}

t.test('a reply too large to record, or replies that add up to it, end the episode invalid; nothing of it is cached', async t => {
  const cacheDir = tempCache(t)
  const big = await episode(t, () => ({body: completion({content: 'A'.repeat(600_000)})}), {cacheDir})
  t.match(big.out.invalid!.reason, /^malformed_response: .*is \d+ characters, more than the 262144 a reply may be/)
  t.same(fs.readdirSync(cacheDir).filter(f => !f.startsWith('.')), [], 'the oversized reply is not cached: a rerun asks again')
  const name = await episode(t, () => ({body: completion({tool_calls: [{id: 'c'.repeat(100_000), name: 'n'.repeat(100_000), arguments: '{}'}]})}))
  t.match(name.out.invalid!.reason, /^malformed_response: /)
  // each reply under the limit, the episode over it: a model that keeps calling tools with 200 KB of arguments
  const many = await episode(t, () => ({body: completion({tool_calls: [{id: 'c1', name: 'get_employee', arguments: JSON.stringify({employee_id: 'E'.repeat(200_000)})}]})}))
  t.match(many.out.invalid!.reason, /^malformed_response: the model's replies bring what it said in this episode to \d+ characters, over the 262144/)
  t.ok(many.calls.length <= 1, 'it ends at the reply that brings it over')
})

t.test('a server that echoes the key encoded (base64, hex) gets none of its forms into the cache or the transcript', async t => {
  const cacheDir = tempCache(t)
  const echo: Script = req => {
    const key = String(req.headers.authorization ?? '').slice('Bearer '.length)
    return {body: completion({content: `b64=${Buffer.from(key).toString('base64')} hex=${Buffer.from(key).toString('hex')} raw=${key}`})}
  }
  const {out} = await episode(t, echo, {cacheDir})
  const forms = [KEY, Buffer.from(KEY).toString('base64').slice(0, 20), Buffer.from(KEY).toString('hex')]
  const cached = fs.readdirSync(cacheDir, {recursive: true}).map(f => path.join(cacheDir, String(f))).filter(f => fs.statSync(f).isFile()).map(f => fs.readFileSync(f, 'utf8')).join('\n')
  t.ok(cached.length > 0, 'the reply was cached')
  for (const f of forms) {
    t.notOk(cached.includes(f), `the cache holds no ${f.slice(0, 8)}…`)
    t.notOk(JSON.stringify(out).includes(f), `the transcript holds no ${f.slice(0, 8)}…`)
  }
})

t.test('a response body of 8 MB is refused as it arrives, declared or not: the episode ends invalid, exp keeps its memory', async t => {
  const huge = JSON.stringify(completion({content: 'A'.repeat(8_000_000)}))
  const declared = await episode(t, () => ({body: huge}), {maxRetries: 0})
  t.match(declared.out.invalid!.reason, /over 1048576 bytes/)
  // a body sent in chunks without a length (chunked transfer): stopped once it is over
  const chunked = await episode(t, () => ({headers: {'transfer-encoding': 'chunked'}, body: huge}), {maxRetries: 0})
  t.match(chunked.out.invalid!.reason, /over 1048576 bytes/)
  const fine = await episode(t, twoTurns)
  t.equal(fine.out.finalAnswer, 'E-104 is onboarded.', 'a usual reply is read as before')
})
