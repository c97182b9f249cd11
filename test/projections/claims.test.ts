import t from 'tap'
import {frontier, hypothesisStatus} from '../../src/projections/index.js'
import {Ledger} from '../../src/store/index.js'
import {Lab} from '../helpers/lab.js'

const holder = async (lab: Lab, h: string, at: number) => hypothesisStatus(await lab.ledger(), h, lab.at(at))!.claim?.holder

t.test('two lanes claim one hypothesis: the first live claim in ledger order holds it, the other is blocked', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.claim(h, 'b', 60)
  await lab.claim(h, 'a', 60)
  const l = await lab.ledger()
  const now = lab.at(10)
  t.equal(hypothesisStatus(l, h, now)!.claim?.holder, 'b', 'b came first, though a sorts first by name')
  t.same(hypothesisStatus(l, h, now)!.contenders, ['a'])
  const fa = frontier(l, 'a', now)
  t.same(fa.blocked, [{hypothesis: h, blocked_by: 'claimed_by:b', visible_as_context: true, until: '2026-03-01T00:01:02.000Z'}])
  t.equal(fa.selected, null)
  t.match(frontier(l, 'b', now).selected, {hypothesis: h, claimed: true, reason: /^current-agent claim/})
})

t.test('a claim lapses after its TTL (injected now); then the next live claim in line takes over', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.claim(h, 'a', 10)
  await lab.claim(h, 'b', 100)
  t.equal(await holder(lab, h, 5), 'a')
  t.equal(await holder(lab, h, 11), 'a', 'just before a expires (claimed at 2 s, for 10 s)')
  t.equal(await holder(lab, h, 12), 'b', 'a expired: b waited in line')
  t.equal(await holder(lab, h, 200), undefined, 'everything lapsed')
  t.equal(hypothesisStatus(await lab.ledger(), h, lab.at(200))!.status, 'proposed')
})

t.test('a renewal while live keeps the place in line; a claim after the lapse queues behind', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  await lab.claim(h, 'a', 10)
  await lab.claim(h, 'b', 1000)
  await lab.claim(h, 'a', 100)
  t.equal(await holder(lab, h, 50), 'a', 'renewed at 4 s, before its 12 s expiry')
  const lab2 = new Lab()
  const g = await lab2.hypothesis()
  await lab2.claim(g, 'a', 1)
  lab2.clock()
  lab2.clock()
  await lab2.claim(g, 'b', 1000)
  await lab2.claim(g, 'a', 100)
  t.equal(await holder(lab2, g, 10), 'b', 'a lapsed before claiming again: a new tenure, behind b')
})

t.test('a release ends the hold at once and hands over', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  const c = await lab.claim(h, 'a', 600)
  await lab.claim(h, 'b', 600)
  await lab.release(h, 'a', c)
  t.equal(await holder(lab, h, 10), 'b')
  t.equal(frontier(await lab.ledger(), 'a', lab.at(10)).blocked.length, 1)
})

t.test('the frontier is the same JSON for the same ledger, whatever order the entries arrive in', async t => {
  const build = async () => {
    const lab = new Lab()
    const hs = [await lab.hypothesis('a'), await lab.hypothesis('b'), await lab.hypothesis('c')]
    await lab.claim(hs[0]!, 'b', 600)
    await lab.claim(hs[0]!, 'a', 600)
    await lab.promoted(hs[1]!, 'b')
    const p = await lab.proposal(hs[2]!, 'c')
    const b = await lab.evaluation(p, {role: 'baseline', lane: 'c'})
    await lab.evaluation(p, {rate: 0.9, baseline: b, lane: 'c'})
    return lab.ledger()
  }
  const [x, y] = [await build(), await build()]
  const now = new Date('2026-03-01T00:05:00.000Z')
  for (const agent of ['a', 'b', 'c']) t.equal(JSON.stringify(frontier(x, agent, now)), JSON.stringify(frontier(y, agent, now)), agent)
  // a clone lists lanes in another order: the ledger sorts them back
  const shuffled = new Ledger([...x.entries].reverse(), e => x.load(e))
  t.same(frontier(shuffled, 'a', now), frontier(x, 'a', now))
})
