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
