import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo, git, handCommit} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {canonicalJson} from '../../src/records/index.js'

t.test('a record committed by hand with plain git that is not valid is reported by fsck and skipped by the ledger', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const good = await s.append(sampleDraft('note', 1), {lane: 'alice'})
  const rec = {...(await s.ledger()).load(good.id)}
  await s.close()
  // same lane, a record whose body breaks the schema and whose digest no longer matches
  const bad = {...rec, id: 'nt-' + 'f'.repeat(24), lamport: 2, body: {text: 'tampered', color: 'red'}}
  await handCommit(repo, 'alice', `research/notes/ff/${bad.id}.json`, canonicalJson(bad) + '\n', `note: tampered\n\nExp-Record: note/${bad.id}\nExp-Schema: note@1\nExp-Lamport: 2\n`)
  // a commit that is not a record at all
  await handCommit(repo, 'alice', 'README.md', 'hello\n', 'docs: not a record')
  const s2 = await GitRecordStore.open(repo)
  const report = await fsck(s2)
  t.equal(report.problems.length, 2)
  t.match(report.problems[0]!.message, /schema: body.color is not an allowed field/)
  t.equal(report.problems[0]!.path, `research/notes/ff/${bad.id}.json`)
  t.match(report.problems[1]!.message, /not a record commit/)
  const ledger = await s2.ledger()
  t.same(ledger.entries.map(e => e.id), [good.id], 'the ledger keeps only the valid record')
  t.equal(ledger.problems.length, 2, 'and knows what it skipped')
  await s2.close()
})

t.test('fsck catches digest, id, lamport, dangling-cite and duplicate-id problems', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const r = await s.append({...sampleDraft('note', 1), cites: ['kn-' + '0'.repeat(24)]}, {lane: 'alice'})
  const rec = (await s.ledger()).load(r.id)
  await s.close()
  const forged = {...rec, lamport: 1, body: {text: 'changed without a new id'}}
  await handCommit(repo, 'bob', `research/notes/${rec.id.slice(3, 5)}/${rec.id}.json`, canonicalJson({...forged, lane: 'bob'}) + '\n', `note: forged\n\nExp-Record: note/${rec.id}\nExp-Schema: note@1\nExp-Lamport: 1\n`)
  const second = {...rec, lane: 'bob', lamport: 1, id: 'nt-' + 'a'.repeat(24)}
  await handCommit(repo, 'bob', `research/notes/aa/${second.id}.json`, canonicalJson(second) + '\n', `note: x\n\nExp-Record: note/${second.id}\nExp-Schema: note@1\nExp-Lamport: 1\n`)
  const s2 = await GitRecordStore.open(repo)
  const msgs = (await fsck(s2)).problems.map(p => p.message).join('\n')
  t.match(msgs, /digest mismatch/)
  t.match(msgs, /is not derived from its content/)
  t.match(msgs, /lamport 1 is not greater than the previous record's 1/)
  t.match(msgs, /duplicate id with a different digest/)
  t.match(msgs, /dangling cite: kn-0{24}/)
  await s2.close()
})

t.test('a corrupted object is named by fsck, skipped by the ledger', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  await s.append(sampleDraft('note', 1), {lane: 'alice'})
  const r2 = await s.append(sampleDraft('note', 2), {lane: 'alice'})
  await s.close()
  const blob = (await git(repo, 'rev-parse', `refs/research/lanes/alice:research/notes/${r2.id.slice(3, 5)}/${r2.id}.json`)).trim()
  const file = path.join(repo, '.git/objects', blob.slice(0, 2), blob.slice(2))
  fs.chmodSync(file, 0o644)
  fs.writeFileSync(file, Buffer.from('this is not zlib'))
  for (const native of [true, false]) {
    const s2 = await GitRecordStore.open(repo, {native, cache: false})
    const report = await fsck(s2)
    t.equal(report.problems.length, 1, `native=${native}`)
    t.match(report.problems[0]!.message, new RegExp(blob))
    const ledger = await s2.ledger()
    t.equal(ledger.size, 1)
    t.equal(ledger.problems.length, 1)
    await s2.close()
  }
})

t.test('the projection cache can be deleted without changing any answer, and updates incrementally', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  await s.appendBatch([1, 2, 3].map(n => sampleDraft('note', n)), {lane: 'a'})
  const first = (await s.ledger()).records()
  await s.append(sampleDraft('note', 4), {lane: 'b'})
  await s.append(sampleDraft('note', 5), {lane: 'a'})
  const warm = (await s.ledger()).records()
  s.dropCache()
  const cold = (await s.ledger()).records()
  t.same(warm, cold, 'same records with and without the cache')
  t.same(warm.slice(0, 3), first)
  const nocache = await GitRecordStore.open(repo, {cache: false})
  t.same((await nocache.ledger()).records(), cold)
  await nocache.close()
  await s.close()
})

t.test('works in a bare repository and in a linked work tree', async t => {
  const repo = await makeRepo(t)
  const bare = path.join(path.dirname(repo), path.basename(repo) + '-bare.git')
  await git(path.dirname(repo), 'clone', '-q', '--bare', repo, bare)
  t.teardown(() => fs.rmSync(bare, {recursive: true, force: true}))
  const sb = await GitRecordStore.open(bare)
  t.equal(sb.repo.bare, true)
  await sb.append(sampleDraft('note', 1), {lane: 'x'})
  t.equal((await sb.ledger()).size, 1)
  await sb.close()
  const wt = repo + '-wt'
  await git(repo, 'worktree', 'add', '-q', wt)
  t.teardown(() => fs.rmSync(wt, {recursive: true, force: true}))
  const sw = await GitRecordStore.open(path.join(wt))
  await sw.append(sampleDraft('note', 2), {lane: 'y'})
  await sw.close()
  const sm = await GitRecordStore.open(repo)
  t.equal((await sm.ledger()).size, 1, 'the linked work tree wrote to the shared refs')
  await sm.close()
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'appending never touched HEAD, index or work tree')
})
