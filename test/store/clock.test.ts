import t from 'tap'
import {GitRecordStore} from '../../src/store/index.js'
import {makeRepo, handCommit} from '../helpers/repo.js'

/**
 * An append continues the Lamport clock from the highest tip of every lane, and anyone who
 * may push a lane writes its tip: what a tip carries must neither stop every append nor
 * freeze the clock, and a tip that is no record must not turn it back.
 */
t.test('a lane whose tip carries a lamport that is no usable clock (NaN, 1e400, 2^53, none) neither stops appends nor turns the clock', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  t.teardown(() => s.close())
  for (let i = 0; i < 3; i++) await s.append({kind: 'note', body: {text: `mine ${i}`}}, {lane: 'me'})
  for (const [lane, lamport] of [['nan', 'NaN'], ['inf', '1e400'], ['big', '9007199254740992'], ['neg', '-5']] as const) {
    await handCommit(repo, lane, 'x.json', '{}\n', `note: hostile\n\nExp-Record: note/nt-${'0'.repeat(24)}\nExp-Schema: note@1\nExp-Lamport: ${lamport}\n`)
  }
  // a commit that is not a record on top of this lane's own records
  await handCommit(repo, 'me', 'README.md', 'hello\n', 'docs: not a record')
  const r = await s.append({kind: 'note', body: {text: 'after them'}}, {lane: 'me'})
  t.equal(r.lamport, 4, 'the clock goes on from the last record below the tip, past what no clock is')
  const again = await s.append({kind: 'note', body: {text: 'and again'}}, {lane: 'other'})
  t.equal(again.lamport, 5, 'and counts on, on another lane too')
})

t.test('a lane far ahead but within the safe range carries the clock; one past the bound does not', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  t.teardown(() => s.close())
  await s.append({kind: 'note', body: {text: 'one'}}, {lane: 'me'})
  await handCommit(repo, 'ahead', 'x.json', '{}\n', `note: ahead\n\nExp-Record: note/nt-${'1'.repeat(24)}\nExp-Schema: note@1\nExp-Lamport: 1000000\n`)
  t.equal((await s.append({kind: 'note', body: {text: 'two'}}, {lane: 'me'})).lamport, 1000001)
  await handCommit(repo, 'edge', 'x.json', '{}\n', `note: at the edge\n\nExp-Record: note/nt-${'2'.repeat(24)}\nExp-Schema: note@1\nExp-Lamport: ${Number.MAX_SAFE_INTEGER - 10}\n`)
  t.equal((await s.append({kind: 'note', body: {text: 'three'}}, {lane: 'me'})).lamport, 1000002, 'a lane a few counts short of 2^53 would leave no room: passed over')
})

// Found by a sweep: a lane whose tip says exactly CLOCK_MAX (2^53 - 1 - 2^32) took every other
// lane's next append past it, and the writer then passed over that lane's own tip (above the
// bound): each of its records got CLOCK_MAX + 1, tied, ordered by id. A retire and the reopen
// after it landed in either order; `exp reopen` said "reopened" while the hypothesis stayed retired.
t.test("a lane pushed past the bound by another's clock counts on from its own tip; a reopen that changes nothing says so", async t => {
  const CLOCK_MAX = Number.MAX_SAFE_INTEGER - 2 ** 32
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  t.teardown(() => s.close())
  await handCommit(repo, 'mallory', 'x.json', '{}\n', `note: at the bound\n\nExp-Record: note/nt-${'3'.repeat(24)}\nExp-Schema: note@1\nExp-Lamport: ${CLOCK_MAX}\n`)
  const lamports: number[] = []
  for (let i = 0; i < 4; i++) lamports.push((await s.append({kind: 'note', body: {text: `mine ${i}`}}, {lane: 'alice'})).lamport)
  t.same(lamports, [CLOCK_MAX + 1, CLOCK_MAX + 2, CLOCK_MAX + 3, CLOCK_MAX + 4], "alice's own clock counts on")
  // a new process (no cached tips) counts on too
  const s2 = await GitRecordStore.open(repo)
  t.teardown(() => s2.close())
  t.equal((await s2.append({kind: 'note', body: {text: 'later'}}, {lane: 'alice'})).lamport, CLOCK_MAX + 5)
  // retire and reopen on one lane: in order, and the reopen takes effect
  const {retireHypothesis, reopenHypothesis} = await import('../../src/lifecycle/index.js')
  const {sampleDraft} = await import('../helpers/records.js')
  const hyp = (await s2.append(sampleDraft('hypothesis', 7), {lane: 'alice'})).id
  const now = () => new Date()
  await retireHypothesis(s2, {hypothesis: hyp, lane: 'alice', reason: 'r', now})
  const re = await reopenHypothesis(s2, {hypothesis: hyp, lane: 'alice', reason: 'o', now})
  t.equal(re.was, 'retired')
  // another lane's reopen of a retire it cannot count past is refused as ineffective, not reported done
  await retireHypothesis(s2, {hypothesis: hyp, lane: 'alice', reason: 'r again', now})
  await t.rejects(reopenHypothesis(s2, {hypothesis: hyp, lane: 'bob', reason: 'o', now}), {code: 'E_STATE', message: /cannot reopen .*: it is retired/})
})
