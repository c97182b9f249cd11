import t from 'tap'
import type {ChatFn, ChatMessage} from '../../src/agents/openai/chat.js'
import {draftClaimTexts, mergeKnowledge, mineEvidence} from '../../src/mining/index.js'
import {prepare} from '../../src/records/index.js'
import {runs} from '../helpers/mining.js'

const r = runs({
  a1: {task: 'A', passed: true, steps: ['hand_out!EMPTY', 'order']},
  a2: {task: 'A', passed: false, steps: ['hand_out!EMPTY']},
  a3: {task: 'A', passed: true, steps: ['hand_out!EMPTY', 'order']},
  a4: {task: 'A', passed: false, steps: ['hand_out!EMPTY']},
})
const knowledge = mergeKnowledge(mineEvidence(r.traces).map(body => ({id: prepare({kind: 'evidence', body}).id, body})), [])
const fake = (reply: (m: readonly ChatMessage[]) => string): ChatFn => async messages => ({text: reply(messages), usage: {tokensIn: 1, tokensOut: 1}})

t.test('an LLM may reword the claim text, and nothing else', async t => {
  const seen: string[] = []
  const drafted = await draftClaimTexts(knowledge, fake(m => (seen.push(m[1]!.content), 'When `hand_out` fails with `EMPTY`, place an `order`.')), {model: 'fake-1'})
  const k = drafted.find(d => d.body.rule)!
  const before = knowledge.find(d => d.body.slug === k.body.slug)!
  t.equal(k.body.claim.text, 'When `hand_out` fails with `EMPTY`, place an `order`.')
  t.equal(k.body.miner?.model, 'fake-1')
  const {claim: _a, miner: _b, ...rest} = k.body
  const {claim: _c, miner: _d, ...was} = before.body
  t.same(rest, was, 'rule, runs, statistics and links unchanged')
  t.same(k.cites, before.cites)
  t.ok(seen.some(p => p.includes('Claim: If `hand_out` fails with `EMPTY`, call `order` and stop.')), 'the prompt carries the claim')
  t.doesNotThrow(() => prepare(k))
})

t.test('a reply that drops a name or says nothing keeps the deterministic text', async t => {
  for (const reply of ['', 'Place an order when the hand-out fails.', 'x'.repeat(400)]) {
    const drafted = await draftClaimTexts(knowledge, fake(() => reply))
    t.same(drafted, knowledge, JSON.stringify(reply.slice(0, 30)))
  }
})
