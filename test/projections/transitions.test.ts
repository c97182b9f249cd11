import t from 'tap'
import {checkTransitions, hypothesisStatus} from '../../src/projections/index.js'
import {prepare} from '../../src/records/index.js'
import {Lab} from '../helpers/lab.js'

const rules = async (lab: Lab) => checkTransitions(await lab.ledger(), lab.at(10_000)).problems.map(p => p.rule)

async function validated(lab: Lab, h: string) {
  const p = await lab.proposal(h)
  const b = await lab.evaluation(p, {role: 'baseline'})
  const c = await lab.evaluation(p, {rate: 0.8, baseline: b})
  return {p, b, c}
}

t.test('a clean loop iteration has no problem, and its history is recorded', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.claim(h, 'a')
  await lab.promoted(h)
  const r = checkTransitions(await lab.ledger(), lab.at(0))
  t.same(r.problems, [])
  t.same(r.histories[h]!.map(s => s.status), ['proposed', 'running', 'supported', 'promoted'])
})

t.test('promoted without held-out evidence (or without dev evidence) is reported and not applied', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  const {p, b, c} = await validated(lab, h)
  await lab.decision(p, 'accept', [b, c], {hypothesis: h})
  t.same(await rules(lab), ['promoted_without_holdout'])
  t.equal(hypothesisStatus(await lab.ledger(), h, lab.at(0))!.status, 'supported')
  const g = await lab.hypothesis()
  const q = await lab.proposal(g)
  const ho = await lab.evaluation(q, {split: 'holdout', rate: 0.9})
  await lab.decision(q, 'accept', [ho], {hypothesis: g})
  t.same(await rules(lab), ['promoted_without_holdout', 'promoted_without_dev_evidence'])
  const x = await lab.hypothesis()
  const bad = await validated(lab, x)
  const crashed = await lab.evaluation(bad.p, {split: 'holdout', invalid: true})
  await lab.decision(bad.p, 'accept', [bad.c, crashed], {hypothesis: x})
  t.equal((await rules(lab)).at(-1), 'promoted_without_holdout', 'an invalid held-out run is no evidence')
})

t.test('an accept decision on a retired hypothesis', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  const {p, b, c} = await validated(lab, h)
  const ho = await lab.evaluation(p, {split: 'holdout', rate: 0.8, baseline: b})
  await lab.note(h, 'retire')
  await lab.decision(p, 'accept', [b, c, ho], {hypothesis: h})
  t.same(await rules(lab), ['accept_while_retired'])
  t.equal(hypothesisStatus(await lab.ledger(), h, lab.at(0))!.status, 'retired')
})

t.test('an evaluation of a hypothesis with no proposal', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.evaluation('pr-00000000000000000000dead', {cites: [h], rate: 0.9})
  t.same(await rules(lab), ['evaluation_without_proposal'])
  t.equal(hypothesisStatus(await lab.ledger(), h, lab.at(0))!.status, 'proposed', 'not applied')
})

t.test('a release without a claim; a claim or reopen that the status forbids; conflicting decisions', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.release(h, 'b')
  const c = await lab.claim(h, 'a')
  await lab.release(h, 'a', 'cl-000000000000000000000bad')
  await lab.release(h, 'a', c)
  await lab.release(h, 'a')
  t.same(await rules(lab), ['release_without_claim', 'release_without_claim', 'release_without_claim'], 'b never claimed; a named a claim it did not make; a released twice')
  const g = await lab.hypothesis()
  await lab.note(g, 'reopen')
  await lab.note(g, 'retire')
  await lab.claim(g, 'b')
  const {p, b, c: cand} = await validated(lab, await lab.hypothesis())
  const held = await lab.evaluation(p, {rate: 0.7, baseline: b, split: 'holdout'})
  await lab.decision(p, 'accept', [b, cand, held])
  await lab.decision(p, 'reject', [b, cand])
  t.same((await rules(lab)).slice(3), ['reopen_not_retired', 'claim_while_retired', 'conflicting_decisions'], 'a reject after an accept is not applied')
  // an accept after a reject is: a standing accept outweighs a reject written first (any lane can write one)
  const lh = await lab.hypothesis()
  const later = {...(await validated(lab, lh)), h: lh}
  const laterHeld = await lab.evaluation(later.p, {rate: 0.7, baseline: later.b, split: 'holdout'})
  await lab.decision(later.p, 'reject', [later.b, later.c], {lane: 'mallory'})
  await lab.decision(later.p, 'accept', [later.b, later.c, laterHeld])
  t.same((await rules(lab)).slice(3), ['reopen_not_retired', 'claim_while_retired', 'conflicting_decisions'], 'and names nothing in the status')
  t.equal(hypothesisStatus(await lab.ledger(), later.h, lab.at(0))!.status, 'promoted')
})

t.test('records about a hypothesis that is not in the ledger, or that precede it', async t => {
  const lab = new Lab()
  await lab.claim('hy-000000000000000000000abc', 'a')
  const draft = {kind: 'hypothesis' as const, body: {statement: 'later', mechanism: 'm', expected_effect: {metric: 'success_rate', direction: 'increase' as const}, conditions: [], mechanism_family: 'f'}}
  const id = prepare(draft).id
  await lab.claim(id, 'b')
  await lab.add(draft, 'a')
  const r = checkTransitions(await lab.ledger(), lab.at(0)).problems
  t.same(r.map(p => [p.rule, p.hypothesis]), [['unknown_hypothesis', 'hy-000000000000000000000abc'], ['precedes_hypothesis', id]])
  t.match(r[0]!.message, /not in the ledger/)
  t.equal(r[0]!.ref, 'refs/research/lanes/a')
})

t.test('a lane cannot claim or release for another lane, nor hold a hypothesis past the longest lease', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.claim(h, 'alice', 600)
  // lane mallory writes a release naming alice, then a claim in alice's name
  await lab.add({kind: 'release', body: {hypothesis: h, holder: 'alice'}, cites: [h]}, 'mallory')
  const forged = await lab.add({kind: 'claim', body: {hypothesis: h, holder: 'alice', ttl_seconds: 60, expires_at: '2099-01-01T00:00:00.000Z'}, cites: [h]}, 'mallory')
  const v = hypothesisStatus(await lab.ledger(), h, lab.at(30))!
  t.equal(v.claim?.holder, 'alice', "alice's claim stands")
  t.equal(v.claim?.claim, v.claim?.since, 'neither the forged release nor the forged claim is taken')
  t.equal(hypothesisStatus(await lab.ledger(), h, lab.at(1000))!.status, 'proposed', 'and it lapses when her lease does, not in 2099')
  const r = checkTransitions(await lab.ledger(), lab.at(30))
  t.same(r.problems.map(p => [p.rule, p.lane]), [['claim_not_own', 'mallory'], ['claim_not_own', 'mallory']])
  t.ok(r.problems.some(p => p.record === forged))

  // a lane's own claim that names an expiry decades away holds for the longest lease only
  const g = await lab.hypothesis()
  await lab.add({kind: 'claim', body: {hypothesis: g, holder: 'bob', ttl_seconds: 60, expires_at: '2999-01-01T00:00:00.000Z'}, cites: [g]}, 'bob')
  const year = 366 * 24 * 3600
  t.equal(hypothesisStatus(await lab.ledger(), g, lab.at(year - 60))!.claim?.holder, 'bob', 'held within 366 days')
  t.equal(hypothesisStatus(await lab.ledger(), g, lab.at(year + 60))!.status, 'proposed', 'lapsed after them')
  t.ok(checkTransitions(await lab.ledger(), lab.at(0)).problems.some(p => p.rule === 'claim_out_of_bounds' && p.hypothesis === g), 'and named')

  // a claim dated in the future (its created_at is its writer's word) is not taken before then
  const f = await lab.hypothesis()
  await lab.store.append({kind: 'claim', body: {hypothesis: f, holder: 'carol', ttl_seconds: 60, expires_at: '2100-01-01T00:01:00.000Z'}, cites: [f]}, {lane: 'carol', now: () => new Date('2100-01-01T00:00:00.000Z')})
  t.equal(hypothesisStatus(await lab.ledger(), f, lab.at(100))!.status, 'proposed', 'a claim dated 2100 holds nothing now')
  t.ok(checkTransitions(await lab.ledger(), lab.at(100)).problems.some(p => p.rule === 'claim_out_of_bounds' && p.hypothesis === f))
})
