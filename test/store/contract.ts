import type {Test} from 'tap'
import {KIND_NAMES, recordDigest} from '../../src/records/index.js'
import type {RecordStore} from '../../src/store/index.js'
import {sampleDraft} from '../helpers/records.js'

const clock = (start = Date.parse('2026-11-30T12:00:00Z')) => {
  let t = start
  return () => new Date((t += 1000))
}

/**
 * The RecordStore contract: every adapter (in-memory, git with isomorphic-git reads, git
 * with the native fast path) must pass the same assertions (git-bug's RepoTest pattern).
 */
export function storeContract(t: Test, create: (t: Test) => Promise<RecordStore>): void {
  t.test('round-trips a record of every kind', async t => {
    const s = await create(t)
    const now = clock()
    for (const kind of KIND_NAMES) {
      const d = sampleDraft(kind)
      const r = await s.append(d, {lane: 'alice', now})
      t.equal(r.status, 'created', kind)
      t.equal(r.kind, kind)
      t.match(r.id, new RegExp(`^[a-z]{2}-[0-9a-f]{24}$`))
    }
    const ledger = await s.ledger()
    t.equal(ledger.size, KIND_NAMES.length)
    for (const e of ledger.entries) {
      const rec = ledger.load(e)
      t.same(rec.body, sampleDraft(e.kind).body, `${e.kind} body survives`)
      t.equal(rec.digest, recordDigest(rec), `${e.kind} digest recomputes`)
      t.equal(rec.lane, 'alice')
      t.equal(await s.holdingCommit(e), e.commit, `${e.kind}: the commit that holds it is the one the ledger names`)
    }
    t.same(ledger.entries.map(e => e.lamport), KIND_NAMES.map((_, i) => i + 1), 'lamport counts up')
    await s.close()
  })

  t.test('appending the same record twice is a no-op that succeeds', async t => {
    const s = await create(t)
    const a = await s.append(sampleDraft('note', 1), {lane: 'alice'})
    const b = await s.append(sampleDraft('note', 1), {lane: 'bob'})
    t.equal(b.status, 'exists')
    t.equal(b.id, a.id)
    t.equal(b.lane, 'alice', 'reports where it already is')
    t.equal((await s.ledger()).size, 1)
    await s.close()
  })

  t.test('the same id with a different digest is a conflict and writes nothing', async t => {
    const s = await create(t)
    await s.append({kind: 'note', body: {text: 'first'}, key: 'attempt-1'}, {lane: 'alice'})
    await t.rejects(s.append({kind: 'note', body: {text: 'second'}, key: 'attempt-1'}, {lane: 'alice'}), {code: 'E_CONFLICT'})
    await t.rejects(s.appendBatch([sampleDraft('note', 5), {kind: 'note', body: {text: 'third'}, key: 'attempt-1'}], {lane: 'bob'}), {code: 'E_CONFLICT'})
    const ledger = await s.ledger()
    t.equal(ledger.size, 1, 'the batch was all-or-nothing')
    t.equal(ledger.records({kinds: ['note']})[0]!.body.text, 'first')
    await s.close()
  })

  t.test('a keyed id derives from the key, not the content', async t => {
    const s = await create(t)
    const a = await s.append({kind: 'note', body: {text: 'x'}, key: 'k'}, {lane: 'alice'})
    const b = await s.append({kind: 'note', body: {text: 'x'}}, {lane: 'alice'})
    t.not(a.id, b.id)
    t.equal((await s.ledger()).load(a.id).key, 'k')
    await s.close()
  })

  t.test('schema-invalid drafts are rejected before anything is written', async t => {
    const s = await create(t)
    await t.rejects(s.append({kind: 'note', body: {text: 'x', extra: 1} as never}, {lane: 'alice'}), {code: 'E_SCHEMA'})
    await t.rejects(s.append({kind: 'verification', body: {...sampleDraft('verification').body, outcome: 'maybe'} as never}, {lane: 'alice'}), {code: 'E_SCHEMA'})
    await t.rejects(s.appendBatch([sampleDraft('note', 1), {kind: 'note', body: {} as never}], {lane: 'alice'}), {code: 'E_SCHEMA'})
    await t.rejects(s.append(sampleDraft('note'), {lane: '../evil'}), {code: 'E_INVALID_NAME'})
    t.equal((await s.ledger()).size, 0)
    await s.close()
  })

  t.test('the ledger is ordered by (lamport, lane, id) across lanes', async t => {
    const s = await create(t)
    await s.append(sampleDraft('note', 1), {lane: 'bob'})
    await s.append(sampleDraft('note', 2), {lane: 'alice'})
    await s.appendBatch([sampleDraft('note', 3), sampleDraft('note', 4)], {lane: 'carol'})
    const ledger = await s.ledger()
    t.same(ledger.entries.map(e => [e.lamport, e.lane]), [[1, 'bob'], [2, 'alice'], [3, 'carol'], [4, 'carol']])
    t.equal(ledger.maxLamport, 4)
    await s.close()
  })

  t.test('filters by kind, lane, cites and lamport; knows what cites what', async t => {
    const s = await create(t)
    const k = await s.append(sampleDraft('knowledge'), {lane: 'alice'})
    await s.append({...sampleDraft('note', 1), cites: [k.id]}, {lane: 'bob'})
    await s.append({...sampleDraft('hypothesis', 1), cites: [k.id]}, {lane: 'alice'})
    await s.append(sampleDraft('note', 2), {lane: 'alice', private: true})
    const ledger = await s.ledger()
    t.equal(ledger.select({kinds: ['note']}).length, 2)
    t.equal(ledger.select({lanes: ['bob']}).length, 1)
    t.same(ledger.select({cites: k.id}).map(e => e.kind), ['note', 'hypothesis'])
    t.equal(ledger.select({since: 2}).length, 2)
    t.equal(ledger.select({includePrivate: false}).length, 3)
    t.equal(ledger.citedBy(k.id).length, 2)
    t.equal((await s.ledger({includePrivate: false})).size, 3)
    await s.close()
  })

  t.test('private records live on their own lane ref', async t => {
    const s = await create(t)
    await s.append(sampleDraft('trace', 1), {lane: 'alice', private: true})
    await s.append(sampleDraft('evaluation', 1), {lane: 'alice'})
    const lanes = await s.lanes()
    t.same(lanes.map(l => [l.ref, l.records, l.private]), [['refs/research/lanes/alice', 1, false], ['refs/research/private/alice', 1, true]])
    await s.close()
  })

  t.test('a batch gets consecutive lamport clocks and one result per draft', async t => {
    const s = await create(t)
    await s.append(sampleDraft('note', 0), {lane: 'bob'})
    const res = await s.appendBatch([1, 2, 3, 1].map(n => sampleDraft('note', n)), {lane: 'alice'})
    t.same(res.map(r => r.lamport), [2, 3, 4, 2])
    t.same(res.map(r => r.status), ['created', 'created', 'created', 'created'])
    t.equal(res[0]!.id, res[3]!.id)
    t.equal((await s.ledger()).size, 4)
    await s.close()
  })

  t.test('beforeWrite sees each new record as it will be written, before it is; throwing from it writes nothing', async t => {
    const s = await create(t)
    const known = await s.append(sampleDraft('note', 0), {lane: 'bob'})
    const seen: {id: string; lamport: number; lane: string}[] = []
    const res = await s.appendBatch([sampleDraft('note', 0), sampleDraft('note', 1), sampleDraft('note', 2)], {lane: 'alice', beforeWrite: rs => void seen.push(...rs.map(r => ({id: r.id, lamport: r.lamport, lane: r.lane})))})
    t.same(seen, res.slice(1).map(r => ({id: r.id, lamport: r.lamport, lane: 'alice'})), 'the records it creates, with their clocks (not the one recorded already)')
    t.equal(res[0]!.id, known.id)
    await t.rejects(s.append(sampleDraft('note', 3), {lane: 'carol', beforeWrite: () => Promise.reject(new Error('no'))}), /no/)
    const ledger = await s.ledger()
    t.equal(ledger.size, 3, 'nothing of the refused append')
    t.same((await s.lanes()).map(l => l.lane).sort(), ['alice', 'bob'], 'not even its lane')
    let called = false
    t.equal((await s.append(sampleDraft('note', 1), {lane: 'carol', beforeWrite: () => void (called = true)})).status, 'exists')
    t.notOk(called, 'not called when nothing is created')
    await s.close()
  })

  t.test('created_at comes from the injected clock and is excluded from the digest', async t => {
    const s = await create(t)
    const r = await s.append(sampleDraft('note', 9), {lane: 'alice', now: () => new Date('2026-05-01T10:00:00.000Z')})
    const rec = (await s.ledger()).load(r.id)
    t.equal(rec.created_at, '2026-05-01T10:00:00.000Z')
    t.equal(r.digest, recordDigest({kind: 'note', body: sampleDraft('note', 9).body}))
    await s.close()
  })

  t.test('a record over the size limit (1 MiB) is refused with its size, and nothing is written', async t => {
    const s = await create(t)
    await t.rejects(s.append({kind: 'note', body: {text: 'x'.repeat(1024 * 1024)}}, {lane: 'alice'}), {code: 'E_TOO_LARGE', message: /note record nt-[0-9a-f]{24} is \d+ bytes, more than the limit of 1048576/})
    await t.rejects(s.appendBatch([sampleDraft('note', 1), {kind: 'note', body: {text: 'y'.repeat(1024 * 1024 - 100)}}], {lane: 'alice'}), {code: 'E_TOO_LARGE'}, 'a body just under the limit makes a record file over it')
    t.equal((await s.ledger()).size, 0)
    const ok = await s.append({kind: 'note', body: {text: 'z'.repeat(1024 * 1024 - 400)}}, {lane: 'alice'})
    t.equal(ok.status, 'created', 'a record just under the limit is fine')
    await s.close()
  })

  t.test('artifacts: stored beside the record, named by path and digest, covered by the digest, read back checked', async t => {
    const s = await create(t)
    const log = Buffer.from(`${'line of a long log\n'.repeat(100_000)}\u0000binary tail\u00ff`, 'latin1')
    const a = await s.append({kind: 'note', body: {text: 'see the log'}, artifacts: [{name: 'run.log', content: log, media_type: 'text/plain'}]}, {lane: 'alice'})
    const plain = await s.append({kind: 'note', body: {text: 'see the log'}}, {lane: 'alice'})
    t.not(a.id, plain.id, 'the artifact is part of what the id derives from')
    const other = await s.append({kind: 'note', body: {text: 'see the log'}, artifacts: [{name: 'run.log', content: Buffer.from('another log')}]}, {lane: 'bob'})
    t.not(other.id, a.id, 'other content, another record')
    const rec = (await s.ledger()).load(a.id)
    t.same(rec.artifacts, [{name: 'run.log', path: `artifacts/${rec.artifacts![0]!.digest.slice(7, 9)}/${rec.artifacts![0]!.digest.slice(7)}`, digest: rec.artifacts![0]!.digest, size: log.length, media_type: 'text/plain'}])
    t.equal(rec.digest, recordDigest(rec), 'the digest recomputes with its artifacts')
    t.same(await s.readArtifact(a.id, 'run.log'), log, 'the content comes back byte for byte')
    await t.rejects(s.readArtifact(a.id, 'other.log'), {code: 'E_NOT_FOUND'})
    await t.rejects(s.readArtifact('nt-000000000000000000000000', 'run.log'), {code: 'E_NOT_FOUND'})
    const again = await s.append({kind: 'note', body: {text: 'see the log'}, artifacts: [{name: 'run.log', content: log, media_type: 'text/plain'}]}, {lane: 'carol'})
    t.equal(again.status, 'exists')
    await t.rejects(s.append({kind: 'note', body: {text: 'two'}, artifacts: [{name: 'a', content: log}, {name: 'a', content: log}]}, {lane: 'alice'}), {code: 'E_INVALID_INPUT'})
    await t.rejects(s.append({kind: 'note', body: {text: 'x'}, artifacts: [{name: '../etc/passwd', content: log}]}, {lane: 'alice'}), {code: 'E_INVALID_INPUT'})
    await s.close()
  })

  t.test('exclusive: one holder of a name at a time; a failing holder lets the next one in', async t => {
    const s = await create(t)
    const log: string[] = []
    const job = (tag: string) => s.exclusive('claims', async () => {
      log.push(`${tag}+`)
      await new Promise(r => setTimeout(r, 15))
      log.push(`${tag}-`)
      return tag
    })
    t.same(await Promise.all(['a', 'b', 'c'].map(job)), ['a', 'b', 'c'])
    for (let i = 0; i < log.length; i += 2) t.equal(log[i + 1], log[i]!.replace('+', '-'), `no overlap at ${log[i]}`)
    await t.rejects(s.exclusive('claims', async () => Promise.reject(new Error('boom'))), /boom/)
    t.equal(await s.exclusive('claims', async () => 1), 1, 'the lock was given back')
    await s.close()
  })
}
