import t from 'tap'
import {MemoryRecordStore} from '../../src/store/index.js'
import {parseRules} from '../../src/knowledge/index.js'
import {rawFailures, trace2skillStep, TRACE2SKILL} from '../../src/loop/compare/trace2skill.js'
import {buildRecall} from '../../src/loop/recall.js'
import {currentKnowledge} from '../../src/loop/knowledge.js'
import {MANIFEST, MANIFEST_ID, runDrafts, type RunSpec} from '../helpers/mining.js'

const now = () => new Date('2026-12-01T12:00:00.000Z')

async function storeWith(specs: Record<string, RunSpec>): Promise<MemoryRecordStore> {
  const store = new MemoryRecordStore()
  await store.append(MANIFEST, {lane: 'arm', now})
  for (const [name, s] of Object.entries(specs)) {
    const d = runDrafts(name, s)
    await store.appendBatch([d.trace, d.verification], {lane: 'arm', now})
  }
  return store
}

t.test('trace2skill drafts one line per (tool, first error) of the failing train traces, without the miner', async t => {
  const store = await storeWith({
    a: {task: 's1', passed: false, steps: ['get_person', 'give_laptop!NO_STOCK', 'finish']},
    b: {task: 's2', passed: false, steps: ['give_laptop!NO_STOCK', 'grant!DENIED']},
    c: {task: 's3', passed: false, steps: ['get_person', 'grant!DENIED']},
    d: {task: 's4', passed: false, steps: ['get_person', 'finish']},
    e: {task: 's5', passed: true, steps: ['give_laptop!NO_STOCK', 'finish']},
    f: {task: 's6', passed: false, steps: ['grant!DENIED'], valid: false},
    g: {task: 's7', passed: false, steps: ['grant!DENIED'], split: 'validation'},
  })
  const failures = rawFailures(await store.ledger())
  t.same(failures.map(f => `${f.tool}!${f.code}`).sort(), ['give_laptop!NO_STOCK', 'give_laptop!NO_STOCK', 'grant!DENIED'], 'failing, valid, train traces with an error only; the first error of each')
  const step = trace2skillStep({skill: 'onboarding'})
  const r = await step(store as never, await store.ledger(), {manifest: MANIFEST_ID, lane: 'arm', now, scenariosDir: ''})
  t.equal(r.evidence.length, 0, 'no evidence: nothing is mined')
  t.equal(r.knowledge.length, 2)
  const ledger = await store.ledger()
  const k = currentKnowledge(ledger)
  t.same(k.map(x => x.record.body.claim.text).sort(), ['If `give_laptop` fails with `NO_STOCK`, call `escalate` and stop.', 'If `grant` fails with `DENIED`, call `escalate` and stop.'])
  for (const x of k) {
    t.same(parseRules(x.record.body.claim.text), [x.rule], 'the line is a rule the scripted agent follows')
    t.same(x.record.body.miner, TRACE2SKILL)
    t.same(x.record.body.evidence.counterexamples, [], 'no counterexample check')
    t.same(x.record.body.unexplained, [])
  }
  const stock = k.find(x => x.record.body.slug === 't2s-give-laptop-no-stock')!
  t.equal(stock.record.body.statistics.support, 2)
  t.equal(stock.record.body.confidence, 0.6667, 'the share of the failing traces that showed it')
  // the proposer's recall takes them like any candidate knowledge
  const recall = buildRecall(k, {skill: 'onboarding', workflows: [], present: [], items: 8, tokens: 1200})
  t.equal(recall.body.items.length, 2)
  // a second pass over the same traces drafts nothing new; a new failing trace supersedes the line it adds to
  t.equal((await step(store as never, await store.ledger(), {manifest: MANIFEST_ID, lane: 'arm', now, scenariosDir: ''})).knowledge.length, 0)
  const more = runDrafts('h', {task: 's8', passed: false, steps: ['grant!DENIED']})
  await store.appendBatch([more.trace, more.verification], {lane: 'arm', now})
  const again = await step(store as never, await store.ledger(), {manifest: MANIFEST_ID, lane: 'arm', now, scenariosDir: ''})
  t.equal(again.knowledge.length, 1)
  const after = currentKnowledge(await store.ledger())
  t.equal(after.length, 2, 'the new draft supersedes the old one of the same line')
  t.equal(after.find(x => x.record.body.slug === 't2s-grant-denied')!.record.body.statistics.support, 2)
})
