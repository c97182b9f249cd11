import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import t from 'tap'
import {createChat} from '../../../src/agents/openai/index.js'
import {completion, RETRY_NOW, startFakeLlm} from '../../helpers/fake-llm.js'

t.test('chat(): messages in, text out, with the same retries and cache', async t => {
  let n = 0
  const llm = await startFakeLlm((_req, i) => i === 0 ? {status: 503, headers: RETRY_NOW, body: {error: {message: 'warming up'}}} : {body: completion({content: `draft ${++n}`})})
  const cacheDir = mkdtempSync(join(tmpdir(), 'exp-chat-'))
  t.teardown(async () => {
    await llm.close()
    rmSync(cacheDir, {recursive: true, force: true})
  })
  const ask = createChat({model: 'writer', baseURL: llm.baseURL, apiKey: 'k', env: {}, cacheDir, params: {temperature: 0}})
  const msgs = [{role: 'system' as const, content: 'You write skill patches.'}, {role: 'user' as const, content: 'Summarize.'}]
  t.same(await ask(msgs), {text: 'draft 1', usage: {tokensIn: 10, tokensOut: 5}})
  t.same(await ask(msgs), {text: 'draft 1', usage: {tokensIn: 10, tokensOut: 5, cached: true}})
  t.same((await ask(msgs, {useCache: false})).text, 'draft 2')
  t.equal(llm.requests.length, 3, 'a 503, its retry, and the uncached call')
  t.same(llm.requests[1]!.body, {temperature: 0, model: 'writer', messages: msgs})
})

t.test('chat() failures throw a typed E_LLM error', async t => {
  const llm = await startFakeLlm(() => ({body: 'not json at all{'}))
  t.teardown(() => llm.close())
  const ask = createChat({model: 'writer', baseURL: llm.baseURL, env: {}})
  await t.rejects(ask([{role: 'user', content: 'x'}]), {code: 'E_LLM', data: {kind: 'malformed_response'}})
})
