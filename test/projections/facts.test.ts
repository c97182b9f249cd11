import t from 'tap'
import {encodeFacts, hasFacts, KIND_NAMES, recordFacts} from '../../src/records/index.js'
import {GitRecordStore, MemoryRecordStore, type RecordStore} from '../../src/store/index.js'
import {makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'

async function fill(s: RecordStore): Promise<void> {
  for (const [i, kind] of KIND_NAMES.entries()) await s.append(sampleDraft(kind, i), {lane: 'a'})
  // a holder name outside ASCII: the index is read as latin1, so facts are escaped
  await s.append({kind: 'claim', body: {hypothesis: 'hy-000000000000000000000001', holder: 'zoë-лаб', ttl_seconds: 5, expires_at: '2026-01-01T00:00:05.000Z'}}, {lane: 'a'})
  await s.append({kind: 'note', body: {text: 'retire', about: ['hy-000000000000000000000001'], action: 'retire'}}, {lane: 'a'})
}

t.test('the ledger index keeps each record\'s facts, equal to those of its body, in every adapter and from the cache', async t => {
  const repo = await makeRepo(t)
  const stores: [string, RecordStore][] = [['memory', new MemoryRecordStore()], ['git', await GitRecordStore.open(repo)]]
  for (const [name, s] of stores) {
    await fill(s)
    for (const pass of ['fresh', 'cached']) {
      const l = await s.ledger()
      for (const e of l.entries) {
        const rec = l.load(e)
        t.same(l.facts(e), recordFacts(rec), `${name} ${pass} ${e.kind}`)
        t.equal(e.facts !== undefined, hasFacts(e.kind), `${name} ${pass} ${e.kind} indexed iff it has facts`)
      }
    }
    await s.close()
  }
})

t.test('facts are one ASCII line', async t => {
  const s = new MemoryRecordStore()
  await fill(s)
  const l = await s.ledger()
  for (const e of l.entries) {
    const f = encodeFacts(l.load(e))
    if (f) t.match(f, /^[\x20-\x7e]+$/, e.kind)
  }
  const c = l.select({kinds: ['claim']}).at(-1)!
  t.equal(l.facts(c as typeof c & {kind: 'claim'}).holder, 'zoë-лаб')
})
