import t from 'tap'
import {MemoryRecordStore, baseKey, ownEntry, ownKey, ownKeys} from '../../src/store/index.js'

// Found attacking as the owner of another lane: a lane whose record's key another lane held
// wrote it under the key salted with its lane (`<key>@<lane>`), which can be guessed as well.
// A lane that held both made every later write of that record fail with E_CONFLICT, for
// good: an evolve run's notes, a contract's observations and verdicts, a retire note.

const note = (text: string) => ({kind: 'note' as const, body: {text, action: 'comment' as const}})

t.test('ownKeys: the key, the lane-salted key, then numbered ones; baseKey undoes each', async t => {
  const gen = ownKeys('evolve/x/1', 'alice')
  const first = [0, 1, 2, 3].map(() => gen.next().value)
  t.same(first, ['evolve/x/1', 'evolve/x/1@alice', 'evolve/x/1@alice#2', 'evolve/x/1@alice#3'])
  for (const k of first) t.equal(baseKey(k, 'alice'), 'evolve/x/1')
  t.equal(baseKey('evolve/x/1@bob', 'alice'), 'evolve/x/1@bob', "another lane's salt is part of the key")
  t.equal(baseKey('evolve/x/1@alice#x', 'alice'), 'evolve/x/1@alice#x', 'only a number follows the salt')
  t.equal(baseKey('evolve/x/1@alice#0', 'alice'), 'evolve/x/1@alice#0')
})

t.test('a lane writes past every key of its own another lane holds, and finds its record there', async t => {
  const store = new MemoryRecordStore()
  const key = 'evolve/x/1'
  // mallory holds the key, the lane-salted key and the first numbered one of lane alice
  for (const k of [key, `${key}@alice`, `${key}@alice#2`]) await store.append({...note('mine'), key: k}, {lane: 'mallory'})
  let ledger = await store.ledger()
  t.equal(ownEntry(ledger, 'note', key, 'alice'), undefined, "none of mallory's records is alice's")
  const k = ownKey(ledger, 'note', key, 'alice')
  t.equal(k, `${key}@alice#3`)
  const r = await store.append({...note('alice'), key: k}, {lane: 'alice'})
  t.equal(r.status, 'created')
  ledger = await store.ledger()
  t.equal(ownEntry(ledger, 'note', key, 'alice')?.id, r.id, 'the reader looks as far as the writer wrote')
  t.equal(ownKey(ledger, 'note', key, 'alice'), k, 'and the writer finds it again (the same record is not written twice)')
  // a lane whose own key is free writes under it
  t.equal(ownKey(ledger, 'note', key, 'bob'), `${key}@bob`, 'bob: the key is held, its salted key is free')
  t.equal(ownKey(ledger, 'note', 'other', 'bob'), 'other')
  t.equal(ownEntry(ledger, 'note', key, 'mallory')?.lane, 'mallory')
})
