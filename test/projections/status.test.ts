import t from 'tap'
import {hypotheses, hypothesisStatus} from '../../src/projections/index.js'
import {Lab} from '../helpers/lab.js'

const statusOf = async (lab: Lab, h: string, now = lab.at(10_000)) => hypothesisStatus(await lab.ledger(), h, now)!

t.test('proposed: a hypothesis alone; active: a proposal (an executable patch) exists', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  t.equal((await statusOf(lab, h)).status, 'proposed')
  const p = await lab.proposal(h)
  const v = await statusOf(lab, h)
  t.equal(v.status, 'active')
  t.same(v.because, [p])
  t.same(v.proposals, [p])
})

t.test('running while a claim is live and nothing came out of it; its lapse reveals the evidence status', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.proposal(h)
  const c = await lab.claim(h, 'a', 60)
  const live = await statusOf(lab, h, lab.at(30))
  t.equal(live.status, 'running')
  t.same(live.because, [c])
  t.equal(live.claim?.holder, 'a')
  const lapsed = await statusOf(lab, h, lab.at(120))
  t.equal(lapsed.status, 'active')
  t.equal(lapsed.claim, undefined)
  t.match(lapsed.history.at(-1), {status: 'active', reason: /lapsed/})
})

t.test('supported on a validation candidate that moves the metric the expected way; contradicted otherwise', async t => {
  const lab = new Lab()
  const [up, down, flat, regress] = [await lab.hypothesis(), await lab.hypothesis(), await lab.hypothesis(), await lab.hypothesis()]
  for (const [h, rate, regressions] of [[up, 0.8, 0], [down, 0.3, 0], [flat, 0.5, 0], [regress, 0.9, 1]] as const) {
    const p = await lab.proposal(h)
    const b = await lab.evaluation(p, {role: 'baseline'})
    await lab.evaluation(p, {rate, baseline: b, regressions})
  }
  t.same((await hypotheses(await lab.ledger(), lab.at(0))).map(v => v.status), ['supported', 'contradicted', 'contradicted', 'contradicted'])
})

t.test('without a comparison the candidate is judged against the latest baseline of its proposal; direction and margin count', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis('a', {margin: 0.2})
  const p = await lab.proposal(h)
  await lab.evaluation(p, {role: 'baseline', rate: 0.5})
  await lab.evaluation(p, {rate: 0.6})
  t.equal((await statusOf(lab, h)).status, 'contradicted', '+0.1 is within the 0.2 margin')
  await lab.evaluation(p, {rate: 0.8})
  t.equal((await statusOf(lab, h)).status, 'supported', '+0.3 clears it')
  const d = await lab.hypothesis('a', {direction: 'decrease', metric: 'violations'})
  const q = await lab.proposal(d)
  const b = await lab.evaluation(q, {role: 'baseline'})
  await lab.evaluation(q, {rate: 0.9, baseline: b})
  t.equal((await statusOf(lab, d)).status, 'contradicted', 'violations did not go down (the score delta is 0)')
})

t.test('needs_retry when every episode of the candidate was invalid, keeping the proposal to resume from', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  const p = await lab.proposal(h)
  const b = await lab.evaluation(p, {role: 'baseline'})
  const c = await lab.evaluation(p, {invalid: true})
  const v = await statusOf(lab, h)
  t.equal(v.status, 'needs_retry')
  t.same(v.because, [c, p])
  // a rejection that rests only on crashed runs says nothing about the idea either
  await lab.decision(p, 'reject', [b, c], {hypothesis: h})
  t.equal((await statusOf(lab, h)).status, 'needs_retry')
  await lab.evaluation(p, {rate: 0.9, baseline: b})
  t.equal((await statusOf(lab, h)).status, 'supported', 'the retry scored')
})

t.test('contradicted by a rejection on valid evidence; negative evidence is counted', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  const p = await lab.proposal(h)
  const b = await lab.evaluation(p, {role: 'baseline'})
  const c = await lab.evaluation(p, {rate: 0.6, baseline: b})
  const d = await lab.decision(p, 'reject', [b, c], {hypothesis: h})
  const v = await statusOf(lab, h)
  t.equal(v.status, 'contradicted')
  t.same(v.because, [d])
  t.equal(v.evidence, 3)
})

t.test('promoted only by an accept resting on held-out evidence; the history tells the way there', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.claim(h, 'a', 3600)
  const {decision} = await lab.promoted(h)
  const v = await statusOf(lab, h, lab.at(20))
  t.equal(v.status, 'promoted', 'a live claim does not hide a promotion')
  t.equal(v.because[0], decision)
  t.same(v.merge, {commit: '63'.padStart(40, '0'), branch: 'main'})
  t.same(v.history.map(s => s.status), ['proposed', 'running', 'supported', 'promoted'])
})

t.test('retired by a note whatever the evidence says; reopen reveals the evidence, including what came meanwhile', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  const p = await lab.proposal(h)
  const r = await lab.note(h, 'retire')
  t.same((await statusOf(lab, h)).because, [r])
  const b = await lab.evaluation(p, {role: 'baseline'})
  await lab.evaluation(p, {rate: 0.9, baseline: b})
  t.equal((await statusOf(lab, h)).status, 'retired')
  await lab.note(h, 'reopen')
  const v = await statusOf(lab, h)
  t.equal(v.status, 'supported')
  t.same(v.history.map(s => s.status), ['proposed', 'active', 'retired', 'supported'])
})

t.test('private lanes are left out: the answer is the same in a clone that never fetched them', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.proposal(h, 'a', true)
  await lab.hypothesis('a', {private: true})
  const list = await hypotheses(await lab.ledger(), lab.at(0))
  t.same(list.map(v => [v.id, v.status]), [[h, 'proposed']])
  t.same((await hypotheses(await lab.ledger(), lab.at(0), {includePrivate: true})).map(v => v.status), ['active', 'proposed'])
})
