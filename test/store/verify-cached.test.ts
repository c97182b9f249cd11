import t from 'tap'
import {encodeRecord, prepare, seal, type RecordDraft} from '../../src/records/index.js'
import {checkRecordBytes, verifyCachedBytes, type IndexedRecord} from '../../src/store/git/record-bytes.js'

/**
 * The check of bytes read from the projection cache against the index line that points to
 * them: the cache is derived data anyone can edit, so every change to the bytes outside
 * `volatile` (which no digest covers), and every change to an index field, must be caught.
 */

function cached(draft: RecordDraft, lane = 'alice', lamport = 7): {bytes: Buffer; entry: IndexedRecord} {
  const rec = seal(prepare(draft), {lane, lamport, createdAt: '2026-01-02T03:04:05.678Z'})
  const bytes = encodeRecord(rec)
  const r = checkRecordBytes(bytes, {lane, kind: rec.kind, id: rec.id, lamport})
  if (!r.ok) throw new Error(`fixture record does not check out: ${JSON.stringify(r.problems)}`)
  return {bytes, entry: {id: rec.id, kind: rec.kind, digest: rec.digest, lamport: rec.lamport, lane: rec.lane, cites: rec.cites, created: rec.created_at, pre: r.ok.pre}}
}

const CITE_A = 'tr-0123456789abcdef01234567'
const CITE_B = 'mf-89abcdef0123456789abcdef'
const FIXTURES: [string, RecordDraft][] = [
  ['a note, no cites', {kind: 'note', body: {text: 'plain ascii'}, cites: []}],
  ['a note with cites and non-ASCII text', {kind: 'note', body: {text: 'émoji 🚀 and "quotes" and \\ and \u0001'}, cites: [CITE_B, CITE_A]}],
  ['a keyed note', {kind: 'note', key: 'drafts/pr-0123456789abcdef01234567', body: {text: 'keyed'}, cites: [CITE_A]}],
  ['a keyed note, key with escapes and non-ASCII', {kind: 'note', key: 'k "q" \\ é \u0000 end', body: {text: 'keyed'}, cites: []}],
  ['a keyed note, plain printable ASCII key (checked from its bytes)', {kind: 'note', key: 'bench/v 9 ~!#$%&()*+,-./:;<=>?@[]^_`{|}', body: {text: 'keyed'}, cites: [CITE_A, CITE_B].sort()}],
  ['a keyed note, key with DEL (parsed, not taken as it stands)', {kind: 'note', key: 'k\u007f', body: {text: 'keyed'}, cites: []}],
  ['a note with volatile measurements', {kind: 'note', body: {text: 'timed'}, cites: [], volatile: {latency_ms: 12, host: 'h'}}],
]

for (const [name, draft] of FIXTURES) {
  t.test(`${name}: passes as written, and any change outside volatile is caught`, async t => {
    const {bytes, entry} = cached(draft)
    t.equal(verifyCachedBytes(bytes, entry), undefined, 'the record as exp wrote it')
    const text = bytes.toString('latin1')
    const vol = text.indexOf(',"volatile":{')
    const end = vol < 0 ? bytes.length : vol
    let missed = 0
    for (let i = 0; i < end; i++) {
      for (const flip of [0x01, 0x20]) {
        const b = Buffer.from(bytes)
        b[i] = b[i]! ^ flip
        if (verifyCachedBytes(b, entry) === undefined) {
          missed++
          t.fail(`byte ${i} (${JSON.stringify(text[i])}) ^ ${flip} was not caught`)
        }
      }
    }
    t.equal(missed, 0, `every one of the ${end * 2} byte changes before volatile caught`)
    // cut or grown: lengths must agree with the index
    t.not(verifyCachedBytes(bytes.subarray(0, bytes.length - 1), entry), undefined, 'the newline cut')
    t.not(verifyCachedBytes(Buffer.concat([bytes, Buffer.from('\n')]), entry), undefined, 'a byte added')
    // every index field, changed
    const other = cached({kind: 'note', body: {text: 'another'}, cites: []}).entry
    const edits: [string, Partial<IndexedRecord>][] = [
      ['id', {id: other.id}],
      ['id of another kind', {id: `tr${entry.id.slice(2)}`}],
      ['kind', {kind: 'decision'}],
      ['digest', {digest: other.digest}],
      ['digest cut', {digest: entry.digest.slice(0, 40)}],
      ['lamport', {lamport: entry.lamport + 1}],
      ['lane', {lane: 'mallory'}],
      ['created', {created: '2026-01-02T03:04:05.679Z'}],
      ['cites added', {cites: [...entry.cites, 'zz-0123456789abcdef01234567']}],
      ['cites dropped', {cites: entry.cites.slice(1)}],
      ['cites with a quote', {cites: [`${CITE_A}"`]}],
      ['pre - 1', {pre: entry.pre - 1}],
      ['pre + 1', {pre: entry.pre + 1}],
      ['pre 0', {pre: 0}],
      ['pre past the end', {pre: bytes.length}],
    ]
    // the digest's name edited alike in the bytes and the index: the hash covers its hex digits only
    const renamed = Buffer.from(text.replace('"digest":"sha256:', '"digest":"sha257:'), 'latin1')
    t.notOk(renamed.equals(bytes), 'the fixture has the name to edit')
    t.not(verifyCachedBytes(renamed, {...entry, digest: entry.digest.replace('sha256:', 'sha257:')}), undefined, 'digest named sha257 in both: caught')
    const before = Buffer.from(bytes)
    for (const [what, edit] of edits) {
      if (what === 'cites dropped' && !entry.cites.length) continue
      t.not(verifyCachedBytes(bytes, {...entry, ...edit}), undefined, `index ${what} changed: caught`)
    }
    // the digest is checked where the bytes lie (its suffix written over the envelope and
    // put back): whatever the outcome, the bytes are as they were
    t.equal(verifyCachedBytes(bytes, entry), undefined)
    t.ok(bytes.equals(before), 'the bytes are unchanged by every check, passed or failed')
  })
}

t.test('a volatile field may differ (no digest covers it), its framing may not', async t => {
  const {bytes, entry} = cached({kind: 'note', body: {text: 'timed'}, cites: [], volatile: {latency_ms: 12}})
  const text = bytes.toString('latin1')
  t.equal(verifyCachedBytes(Buffer.from(text.replace('"latency_ms":12', '"latency_ms":99'), 'latin1'), entry), undefined)
  t.not(verifyCachedBytes(Buffer.from(text.replace(',"volatile":{', ',"volatilx":{'), 'latin1'), entry), undefined)
})

t.test('a record file read from history: invalid UTF-8 is refused, non-ASCII UTF-8 passes', async t => {
  const rec = seal(prepare({kind: 'note', body: {text: 'café'}, cites: []}), {lane: 'alice', lamport: 3, createdAt: '2026-01-02T03:04:05.678Z'})
  const bytes = encodeRecord(rec)
  t.ok(checkRecordBytes(bytes, {lane: 'alice', kind: 'note', id: rec.id, lamport: 3}).ok, 'UTF-8 with a non-ASCII letter')
  const bad = Buffer.from(bytes)
  bad[bytes.indexOf('é')] = 0xff // a byte that starts no UTF-8 sequence
  t.match(checkRecordBytes(bad, {lane: 'alice', kind: 'note', id: rec.id, lamport: 3}).problems, [{code: 'record-invalid', message: /not valid UTF-8/}])
  const ascii = seal(prepare({kind: 'note', body: {text: 'plain'}, cites: []}), {lane: 'alice', lamport: 4, createdAt: '2026-01-02T03:04:05.678Z'})
  t.ok(checkRecordBytes(encodeRecord(ascii), {lane: 'alice', kind: 'note', id: ascii.id, lamport: 4}).ok, 'plain ASCII')
})
