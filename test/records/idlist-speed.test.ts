import t from 'tap'
import {checkEnvelope, checkBody} from '../../src/records/index.js'

// Found by a sweep: IdList's items were a $ref, and ajv checks uniqueItems of such items pair by
// pair: one note with 30,000 cites took ~4 s to read, and ten of them a minute for every fresh
// reader and every `exp fsck`. Written out as strings, the check is one pass.
t.test('a list of 30,000 record ids is checked for duplicates in one pass, and a duplicate is still named', async t => {
  const ids = Array.from({length: 30_000}, (_, i) => `kn-${i.toString(16).padStart(24, '0')}`)
  const record = {schema: 'note@1', kind: 'note', id: `nt-${'0'.repeat(24)}`, digest: `sha256:${'0'.repeat(64)}`, lane: 'a', lamport: 1, created_at: '2026-01-01T00:00:00.000Z', cites: ids, body: {text: 'x', about: ids}}
  const began = Date.now()
  t.same(checkEnvelope(record), [])
  t.same(checkBody('note', record.body), [])
  t.ok(Date.now() - began < 1000, `checked in ${Date.now() - began} ms`)
  const dup = {...record, cites: [...ids.slice(0, 10), ids[3]!]}
  t.match(checkEnvelope(dup), [{path: 'cites', message: /must NOT have duplicate items/}])
})
