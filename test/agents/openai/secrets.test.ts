import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import t from 'tap'
import {chat, createOpenAIAgent} from '../../../src/agents/openai/index.js'
import {agentInput, context, recordingTools} from '../../helpers/agents.js'
import {completion, RETRY_NOW, startFakeLlm} from '../../helpers/fake-llm.js'

// The worst case: a server (or proxy) that echoes the Authorization header back in every
// answer and every error. The key must still show up nowhere we keep or print things.
const KEY = 'sk-live-DO-NOT-LEAK-4f2a9c'

t.test('the API key appears in no outcome, cache file, error or log line', async t => {
  const llm = await startFakeLlm((req, i) => {
    const echoed = String(req.headers.authorization)
    if (i === 0) return {body: completion({content: `you sent ${echoed}`, tool_calls: [{id: 'c1', name: 'search_documents', arguments: JSON.stringify({query: echoed})}]})}
    if (i === 1) return {body: completion({content: `final, with ${echoed}`})}
    return {status: 401, headers: RETRY_NOW, body: {error: {message: `bad key ${echoed}`, type: 'auth'}}}
  })
  const cacheDir = mkdtempSync(join(tmpdir(), 'exp-llm-secret-'))
  const prevLog = process.env.OPENAI_LOG
  process.env.OPENAI_LOG = 'debug' // would make a default client print request details
  const printed: string[] = []
  const out = process.stdout.write.bind(process.stdout)
  const err = process.stderr.write.bind(process.stderr)
  process.stdout.write = ((chunk: unknown, ...rest: never[]) => (printed.push(String(chunk)), out(chunk as string, ...rest))) as typeof process.stdout.write
  process.stderr.write = ((chunk: unknown, ...rest: never[]) => (printed.push(String(chunk)), err(chunk as string, ...rest))) as typeof process.stderr.write
  t.teardown(async () => {
    process.stdout.write = out
    process.stderr.write = err
    if (prevLog === undefined) delete process.env.OPENAI_LOG
    else process.env.OPENAI_LOG = prevLog
    await llm.close()
    rmSync(cacheDir, {recursive: true, force: true})
  })

  const agent = createOpenAIAgent('m', {baseURL: llm.baseURL, apiKey: KEY, env: {}, cacheDir, maxRetries: 0})
  const tools = recordingTools()
  const outcome = await agent.run(agentInput(), tools.invoke, context())
  const failed = await agent.run(agentInput({task: 'another task'}), recordingTools().invoke, context())
  let thrown: unknown
  await chat([{role: 'user', content: 'hi'}], {model: 'm', baseURL: llm.baseURL, apiKey: KEY, env: {}, maxRetries: 0}).catch(e => (thrown = e))
  process.stdout.write = out
  process.stderr.write = err

  t.equal(llm.requests[0]!.headers.authorization, `Bearer ${KEY}`, 'the key did reach the server')
  t.match(outcome.finalAnswer, /final, with Bearer \[redacted\]/)
  t.match(failed.invalid?.reason, /^http: HTTP 401 bad key Bearer \[redacted\]/)
  t.match(thrown, {code: 'E_LLM'})
  const e = thrown as Error & {toJSON(): unknown}
  const cacheText = readdirSync(cacheDir, {recursive: true}).filter(f => String(f).endsWith('.json')).map(f => readFileSync(join(cacheDir, String(f)), 'utf8'))
  t.ok(cacheText.length > 0, 'something was cached')
  const places: [string, string][] = [
    ['outcome', JSON.stringify(outcome)],
    ['invalid outcome', JSON.stringify(failed)],
    ['tool calls', JSON.stringify(tools.calls)],
    ['agent identity', JSON.stringify({name: agent.name, model: agent.model, params: agent.params})],
    ['cache files', cacheText.join('\n')],
    ['error', `${e.message}\n${e.stack}\n${JSON.stringify(e.toJSON())}`],
    ['stdout/stderr', printed.join('')],
  ]
  for (const [where, text] of places) t.notOk(text.includes(KEY), `no key in ${where}`)
})
