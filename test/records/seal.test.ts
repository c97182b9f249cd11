import t from 'tap'
import {KIND_NAMES, canonicalJson, encodeRecord, prepare, seal, identify, decodeRecord} from '../../src/records/index.js'
import {sampleDraft} from '../helpers/records.js'

t.test('the fast record encoding is byte-identical to canonical JSON of the record', async t => {
  for (const kind of KIND_NAMES) {
    for (const extra of [{}, {key: 'k1'}, {volatile: {wall_ms: 12, host: 'h'}}, {cites: ['nt-' + '1'.repeat(24)]}]) {
      const rec = seal(prepare({...sampleDraft(kind), ...extra}), {lane: 'a', lamport: 3, createdAt: '2026-01-01T00:00:00.000Z'})
      const fast = encodeRecord(rec).toString()
      t.equal(fast, canonicalJson(rec) + '\n', `${kind} ${Object.keys(extra).join(',') || 'plain'}`)
      t.same(decodeRecord(fast, 'x'), JSON.parse(canonicalJson(rec)))
    }
  }
})

t.test('prepare normalizes drafts and agrees with identify', async t => {
  const d = {kind: 'note' as const, body: {text: 'x', about: undefined}, cites: ['b' + 'x', 'a' + 'x']}
  const p = prepare(d as never)
  t.same(p.draft.body, {text: 'x'}, 'undefined members dropped')
  t.same(p.draft.cites, ['ax', 'bx'], 'cites sorted')
  t.equal(prepare(d as never), p, 'prepared once per draft object')
  const {id, digest} = identify({kind: 'note', body: {text: 'x'}, cites: ['ax', 'bx']})
  t.equal(p.id, id)
  t.equal(p.digest, digest)
})
