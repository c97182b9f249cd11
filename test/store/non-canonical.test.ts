import t from 'tap'
import {createHash} from 'node:crypto'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo, handCommit} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'

/**
 * A note record file as an attacker writes it with plain git: `body` is put in as raw JSON
 * text, and the digest (and the id derived from it) is computed over exactly those bytes, as
 * exp computes it over its own canonical bytes. Hashing the bytes as they are then agrees.
 */
function forge(body: string, lane: string, lamport: number): {id: string; text: string} {
  const prefix = `{"body":${body},"cites":[],`
  const hex = createHash('sha256').update(`${prefix}"kind":"note","schema":"note@1"}`).digest('hex')
  const id = `nt-${hex.slice(0, 24)}`
  const text = `${prefix}"created_at":"2026-01-01T00:00:00.000Z","digest":"sha256:${hex}","id":"${id}","kind":"note","lamport":${lamport},"lane":"${lane}","schema":"note@1"}\n`
  return {id, text}
}

const FORMS: [string, string][] = [
  ['a key twice (readers that keep the first see "evil")', '{"text":"evil","text":"good"}'],
  ['keys out of order', '{"text":"x","action":"comment"}'],
  ['a space', '{"text": "x"}'],
  ['an escape JSON.stringify does not write', '{"text":"\\u0078"}'],
]

t.test('bytes that hash to their own digest but are not the canonical form are refused by every read and by fsck', async t => {
  for (const [what, body] of FORMS) {
    await t.test(what, async t => {
      const repo = await makeRepo(t)
      const s = await GitRecordStore.open(repo)
      const good = await s.append(sampleDraft('note', 1), {lane: 'mal'})
      await s.close()
      // (numbers in another form: test/records/canonical-bytes.test.ts; a note has none)
      const f = forge(body, 'mal', 2)
      JSON.parse(f.text) // (valid JSON: only its form is wrong)
      await handCommit(repo, 'mal', `research/notes/${f.id.slice(3, 5)}/${f.id}.json`, f.text, `note: forged\n\nExp-Record: note/${f.id}\nExp-Schema: note@1\nExp-Lamport: 2\n`)
      for (const native of [true, false]) {
        const r = await GitRecordStore.open(repo, {native, cache: false})
        const ledger = await r.ledger()
        t.same(
          ledger.entries.map(e => e.id),
          [good.id],
          `native=${native}: the ledger keeps only the real record`,
        )
        t.match(ledger.problems, [{code: 'record-not-canonical', id: f.id}], `native=${native}: and names the forged one`)
        await r.close()
      }
      // an incremental read (the lane's earlier state cached) refuses it too
      const c = await GitRecordStore.open(repo)
      t.same(
        (await c.ledger()).entries.map(e => e.id),
        [good.id],
      )
      t.same(
        (await c.ledger()).entries.map(e => e.id),
        [good.id],
        'from the cache',
      )
      const report = await fsck(c)
      t.match(report.problems, [{code: 'record-not-canonical', id: f.id}])
      await c.close()
    })
  }
})

t.test('an envelope in another form (a space, a key out of order) is refused too: only the body and cites are scanned, the rest compared whole', async t => {
  for (const bend of [(x: string) => x.replace('"lamport":1', '"lamport": 1'), (x: string) => x.replace('"kind":"note","lamport":1,', '"lamport":1,"kind":"note",')]) {
    const repo = await makeRepo(t)
    const f = forge('{"text":"x"}', 'mal', 1)
    const text = bend(f.text)
    t.not(text, f.text)
    JSON.parse(text)
    await handCommit(repo, 'mal', `research/notes/${f.id.slice(3, 5)}/${f.id}.json`, text, `note: forged\n\nExp-Record: note/${f.id}\nExp-Schema: note@1\nExp-Lamport: 1\n`)
    const r = await GitRecordStore.open(repo, {cache: false})
    const ledger = await r.ledger()
    t.equal(ledger.size, 0)
    t.match(ledger.problems, [{code: 'record-not-canonical', id: f.id}])
    await r.close()
  }
})

t.test('a large lane read in full through the spool refuses a non-canonical record among canonical ones', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  await s.appendBatch(
    Array.from({length: 1100}, (_, i) => sampleDraft('note', i)),
    {lane: 'big'},
  )
  await s.close()
  const f = forge('{"text":"evil","text":"good"}', 'big', 1101)
  await handCommit(repo, 'big', `research/notes/${f.id.slice(3, 5)}/${f.id}.json`, f.text, `note: forged\n\nExp-Record: note/${f.id}\nExp-Schema: note@1\nExp-Lamport: 1101\n`)
  const r = await GitRecordStore.open(repo, {cache: false})
  const ledger = await r.ledger()
  t.equal(ledger.size, 1100)
  t.notOk(ledger.has(f.id))
  t.match(ledger.problems, [{code: 'record-not-canonical', id: f.id}])
  await r.close()
})
