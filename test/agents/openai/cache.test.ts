import {mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import t, {type Test} from 'tap'
import {createOpenAIAgent, type OpenAIAgentOptions} from '../../../src/agents/openai/index.js'
import {agentInput, context, recordingTools} from '../../helpers/agents.js'
import {completion, startFakeLlm} from '../../helpers/fake-llm.js'

// A model whose answer changes on every request: a served-from-cache reply is recognisable.
async function setup(t: Test) {
  let n = 0
  const llm = await startFakeLlm(() => ({body: completion({content: `answer ${++n}`}, {prompt_tokens: 11, completion_tokens: 3})}))
  const cacheDir = mkdtempSync(join(tmpdir(), 'exp-llm-cache-'))
  t.teardown(async () => {
    await llm.close()
    rmSync(cacheDir, {recursive: true, force: true})
  })
  const run = (repetition: number, opts: OpenAIAgentOptions = {}) =>
    createOpenAIAgent('m', {baseURL: llm.baseURL, apiKey: 'sk-cache-test-key', env: {}, cacheDir, ...opts}).run(agentInput(), recordingTools().invoke, context({repetition}))
  return {llm, cacheDir, run}
}

t.test('a second identical request is served from the cache', async t => {
  const {llm, run} = await setup(t)
  const a = await run(0)
  const b = await run(0)
  t.equal(llm.requests.length, 1, 'the server saw one request')
  t.equal(a.finalAnswer, 'answer 1')
  t.equal(b.finalAnswer, 'answer 1')
  t.same(a.usage, {tokensIn: 11, tokensOut: 3})
  t.same(b.usage, {tokensIn: 11, tokensOut: 3, cached: true}, 'tokens as first spent, flagged cached')
})

t.test('repeated trials bypass the cache unless told otherwise', async t => {
  const {llm, run} = await setup(t)
  await run(0)
  const again = await run(1)
  t.equal(again.finalAnswer, 'answer 2', 'repetition 1 asked the model again')
  t.equal(llm.requests.length, 2)
  t.equal((await run(0)).finalAnswer, 'answer 1', 'and did not overwrite the entry of repetition 0')
  t.equal((await run(2, {cacheRepetitions: true})).finalAnswer, 'answer 1', 'cacheRepetitions reads it')
  t.equal(llm.requests.length, 2)
})

t.test('the cache key covers the request: other params are another entry', async t => {
  const {llm, cacheDir, run} = await setup(t)
  await run(0)
  await run(0, {params: {temperature: 0.5}})
  t.equal(llm.requests.length, 2)
  const files = readdirSync(cacheDir, {recursive: true}).filter(f => String(f).endsWith('.json'))
  t.equal(files.length, 2)
  t.match(String(files[0]), /^[0-9a-f]{2}\/[0-9a-f]{64}\.json$/)
})

t.test('without a cache folder nothing is cached', async t => {
  const {llm, run} = await setup(t)
  await run(0, {cacheDir: undefined})
  await run(0, {cacheDir: undefined})
  t.equal(llm.requests.length, 2)
})

t.test("an entry that is a FIFO or a link to /dev/zero is a miss, never a wait or a read without end", {skip: process.platform === 'win32' ? 'no FIFOs' : false}, async t => {
  const {execFileSync} = await import('node:child_process')
  const {mkdirSync, symlinkSync} = await import('node:fs')
  const {ResponseCache} = await import('../../../src/agents/openai/cache.js')
  const dir = mkdtempSync(join(tmpdir(), 'exp-llm-cache-'))
  t.teardown(() => rmSync(dir, {recursive: true, force: true}))
  const cache = new ResponseCache(dir)
  const fifoKey = ResponseCache.keyOf({q: 'fifo'})
  const zeroKey = ResponseCache.keyOf({q: 'zero'})
  const at = (key: string) => {
    const hex = key.replace(/^sha256:/, '')
    mkdirSync(join(dir, hex.slice(0, 2)), {recursive: true})
    return join(dir, hex.slice(0, 2), `${hex}.json`)
  }
  execFileSync('mkfifo', [at(fifoKey)])
  symlinkSync('/dev/zero', at(zeroKey))
  t.equal(await cache.get(fifoKey), undefined, 'a FIFO: a miss')
  t.equal(await cache.get(zeroKey), undefined, '/dev/zero: a miss')
  await cache.put(zeroKey, {a: 1})
  t.same(await cache.get(zeroKey), {a: 1}, 'and a put replaces the link')
})
