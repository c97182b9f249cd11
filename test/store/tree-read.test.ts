import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {GitRecordStore, type LedgerEntry} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {LedgerCache} from '../../src/store/git/cache.js'
import {makeRepo, git, gitIn, handCommit} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {CatFileSpool} from '../../src/store/git/cat-file-spool.js'
import {CheckPool} from '../../src/store/git/check-pool.js'
import {checkOne} from '../../src/store/git/check-one.js'
import {fullReads} from '../../src/store/git/lane-read.js'

/**
 * A full read of a plain lane through the git binary (lane-read.ts, readPlainLane: the tip's
 * tree and a lean `git log`, each commit taken apart as it arrives) must give the entries the
 * general readers give, commit for commit; a lane that is not plain is read by the general
 * reader, which names what is wrong.
 */

const pick = (e: LedgerEntry) => ({id: e.id, kind: e.kind, lane: e.lane, lamport: e.lamport, commit: e.commit, digest: e.digest, cites: [...e.cites], facts: e.facts})

async function cold(repo: string, native: boolean): Promise<{entries: ReturnType<typeof pick>[]; problems: string[]}> {
  fs.rmSync(path.join(repo, '.git/exp'), {recursive: true, force: true})
  const s = await GitRecordStore.open(repo, {native, onWarning: () => undefined})
  try {
    const l = await s.ledger()
    return {entries: l.entries.map(pick), problems: l.problems.map(p => p.code)}
  } finally {
    await s.close()
  }
}

t.test('a plain lane read in full gives the entries the in-process read of every commit gives, each with the commit that added it', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const first = await s.appendBatch([1, 2, 3, 4, 5].map(n => sampleDraft('note', n)), {lane: 'a'})
  await s.append({...sampleDraft('note', 6), cites: [first[0]!.id, first[2]!.id]}, {lane: 'b'})
  await s.append({...sampleDraft('note', 7), key: 'k/7'}, {lane: 'a'})
  for (let n = 8; n < 40; n++) await s.append({...sampleDraft('note', n), cites: [first[n % 5]!.id]}, {lane: n % 3 ? 'a' : 'b'})
  await s.close()
  const fast = await cold(repo, true)
  const slow = await cold(repo, false)
  t.equal(fast.entries.length, 39)
  t.same(fast.problems, [])
  t.same(fast.entries, slow.entries, 'same entries, order and commits as the in-process read of every commit')
  // the records are asked of cat-file newest first and written as they come: each data file
  // holds its records back to back (newest first), so a read of the ledger in order is a few
  // large reads, not one per record
  fs.rmSync(path.join(repo, '.git/exp'), {recursive: true, force: true})
  const s2 = await GitRecordStore.open(repo)
  await s2.ledger()
  await s2.close()
  const cache = new LedgerCache(path.join(repo, '.git'))
  const state = cache.loadState()
  for (const [ref, st] of Object.entries(state.lanes)) {
    const es = cache.readEntries(ref, st, ref.split('/').pop()!, false)
    // (a lane of a few commits is read in process, oldest first: its records are written in that order)
    const backToBack = (order: typeof es) => {
      const ends = new Map<string, number>()
      for (const e of order) {
        if (e.off !== (ends.get(e.file) ?? 0)) return false
        ends.set(e.file, e.off + e.len)
      }
      return true
    }
    t.ok(backToBack([...es].reverse()) || backToBack(es), `${ref}: each data file holds its records back to back, in the order they were read`)
    const back = cache.readMany(es)
    t.notOk(back.some(b => !(b instanceof Buffer)), `${ref}: and every record reads back and checks out`)
    cache.close()
  }
  // and git agrees: each commit's trailer names its record
  for (const e of fast.entries.filter((_, i) => i % 7 === 0)) {
    t.match(await git(repo, 'log', '-1', '--format=%B', e.commit), new RegExp(`^Exp-Record: ${e.kind}/${e.id}$`, 'm'), `${e.id} on ${e.commit.slice(0, 12)}`)
  }
})

t.test('a lane with a commit that is no record commit is not plain: read by the general reader, its problems named', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  await s.appendBatch([1, 2, 3].map(n => sampleDraft('note', n)), {lane: 'c'})
  await s.close()
  // a commit that adds a file that is no record: one more commit than records, and a stray file
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/c')).trim()
  const idx = path.join(repo, '.git/tmp-index')
  const env = {GIT_INDEX_FILE: idx}
  await gitIn(repo, ['read-tree', tip], '', env)
  const blob = (await gitIn(repo, ['hash-object', '-w', '--stdin'], 'hello\n')).trim()
  await gitIn(repo, ['update-index', '--add', '--cacheinfo', `100644,${blob},notes.txt`], '', env)
  const tree = (await gitIn(repo, ['write-tree'], '', env)).trim()
  const stray = (await gitIn(repo, ['commit-tree', tree, '-p', tip, '-m', 'a stray file'], '')).trim()
  await git(repo, 'update-ref', 'refs/research/lanes/c', stray)
  for (const native of [true, false]) {
    const r = await cold(repo, native)
    t.equal(r.entries.length, 3, `native=${native}: the three records read`)
    t.same(r.problems, ['commit-not-record'], `native=${native}: the stray commit named`)
  }
})

t.test('what only commits can tell is left to fsck: two records in one commit and an empty one after it', async t => {
  // each commit names its own record by its trailers, every record sound: a full read through
  // git takes it (it does not diff commits); the in-process read (which diffs every commit)
  // and `exp fsck` name the commits. (Twenty records before them: a lane of a few commits is
  // read in process, commit by commit, and names them too.)
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const all = await s.appendBatch(Array.from({length: 22}, (_, n) => sampleDraft('note', n + 1)), {lane: 'd'})
  const [r1, r2] = all.slice(20)
  await s.close()
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/d')).trim()
  const tree = (await git(repo, 'rev-parse', `${tip}^{tree}`)).trim()
  const both = (await gitIn(repo, ['commit-tree', tree, '-p', `${tip}~2`, '-m', `note: two at once\n\nExp-Record: note/${r1!.id}\nExp-Schema: note@1\nExp-Lamport: ${r1!.lamport}`], '')).trim()
  const empty = (await gitIn(repo, ['commit-tree', tree, '-p', both, '-m', `note: nothing\n\nExp-Record: note/${r2!.id}\nExp-Schema: note@1\nExp-Lamport: ${r2!.lamport}`], '')).trim()
  await git(repo, 'update-ref', 'refs/research/lanes/d', empty)
  const fast = await cold(repo, true)
  t.same(fast.entries.slice(20).map(e => e.id), [r1!.id, r2!.id], 'both records, their bytes checked')
  t.same(fast.entries.slice(20).map(e => e.commit), [both, empty], 'each with the commit whose trailer names it')
  t.same((await cold(repo, false)).problems, ['commit-changes', 'commit-changes'], 'the in-process read diffs every commit')
  const s2 = await GitRecordStore.open(repo, {onWarning: () => undefined})
  t.teardown(() => s2.close())
  const report = await fsck(s2)
  t.ok(report.problems.some(p => p.code === 'commit-changes' && p.commit === both), 'fsck names the commit that adds two records')
})

t.test('a trailer that disagrees with its record: the lane is not plain, and the record is named', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const [r1, r2] = await s.appendBatch([1, 2].map(n => sampleDraft('note', n)), {lane: 'e'})
  await s.close()
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/e')).trim()
  const tree = (await git(repo, 'rev-parse', `${tip}^{tree}`)).trim()
  const forged = (await gitIn(repo, ['commit-tree', tree, '-p', `${tip}~1`, '-m', `note: two\n\nExp-Record: note/${r2!.id}\nExp-Schema: note@1\nExp-Lamport: ${r2!.lamport + 40}`], '')).trim()
  await git(repo, 'update-ref', 'refs/research/lanes/e', forged)
  for (const native of [true, false]) {
    const r = await cold(repo, native)
    t.same(r.entries.map(e => e.id), [r1!.id], `native=${native}: the record whose trailer lies is left out`)
    t.same(r.problems, ['record-mismatch'], `native=${native}: and named`)
  }
  const s2 = await GitRecordStore.open(repo, {onWarning: () => undefined})
  t.teardown(() => s2.close())
  t.ok((await fsck(s2)).problems.some(p => p.code === 'record-mismatch' && p.commit === forged), 'fsck names the commit')
})

t.test('a large lane is fetched through a spool file: the same entries, nothing left on disk, and a bad record still named', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const n = 1100 // over SPOOL_MIN (lane-read.ts)
  const made = await s.appendBatch(
    Array.from({length: n}, (_, i) => sampleDraft('note', i)),
    {lane: 'big'},
  )
  await s.close()
  const before = CatFileSpool.opened
  const fast = await cold(repo, true)
  t.equal(CatFileSpool.opened, before + 1, 'the lane was read through a spool')
  t.same(fast.problems, [])
  t.same(
    fast.entries.map(e => [e.id, e.lamport, e.commit]),
    made.map(m => [m.id, m.lamport, m.commit]),
    'every record, in lane order, each with the commit that added it',
  )
  t.same(fs.readdirSync(path.join(repo, '.git/exp')).filter(f => f.startsWith('spool.')), [], 'no spool file is left')
  // one record's bytes changed in history (a commit rewriting its file): the fast read
  // declines the lane, the general reader names the commit that rewrote it and keeps the
  // bytes the record's own commit added
  const victim = made[500]!
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/big')).trim()
  const idx = path.join(repo, '.git/tmp-index')
  const env = {GIT_INDEX_FILE: idx}
  await gitIn(repo, ['read-tree', tip], '', env)
  const file = (await gitIn(repo, ['ls-files'], '', env)).split('\n').find(f => f.includes(victim.id))!
  const bad = (await gitIn(repo, ['hash-object', '-w', '--stdin'], '{"not":"the record"}\n')).trim()
  await gitIn(repo, ['update-index', '--cacheinfo', `100644,${bad},${file}`], '', env)
  const tree = (await gitIn(repo, ['write-tree'], '', env)).trim()
  const forged = (await gitIn(repo, ['commit-tree', tree, '-p', tip, '-m', 'rewrite a record'], '')).trim()
  await git(repo, 'update-ref', 'refs/research/lanes/big', forged)
  const after = await cold(repo, true)
  t.equal(after.entries.length, n, 'every record is read')
  t.same(after.problems, ['commit-not-record'], 'the rewriting commit is named')
  t.equal(after.entries.find(e => e.id === victim.id)?.digest, victim.digest, 'and the record is the one its own commit added')
})

t.test('a large lane is checked on a second thread: the same entries as checked in process, and a forged record still named', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const n = 1100 // over SPOOL_MIN (lane-read.ts): fetched through a spool, checked by a CheckPool
  const made = await s.appendBatch(
    Array.from({length: n}, (_, i) => sampleDraft('note', i)),
    {lane: 'big'},
  )
  // one more record commit, as exp writes it, then its file changed by the one who pushes it:
  // the commit is in order, the bytes do not hash to their digest
  const [last] = await s.appendBatch([sampleDraft('note', n)], {lane: 'big'})
  await s.close()
  const ref = 'refs/research/lanes/big'
  const file = (await git(repo, 'ls-tree', '-r', '--name-only', ref)).split('\n').find(f => f.includes(last!.id))!
  const honest = await git(repo, 'show', `${ref}:${file}`)
  const message = await git(repo, 'log', '-1', '--format=%B', ref)
  t.match(honest, `"text":"note ${n}"`)
  await git(repo, 'update-ref', ref, `${ref}^`)
  await handCommit(repo, 'big', file, honest.replace(`"text":"note ${n}"`, `"text":"note ${n + 1}"`), message)

  const threads = CheckPool.opened
  const viaThread = await cold(repo, true)
  t.ok(os.availableParallelism() < 2 || CheckPool.opened === threads + 1, 'the records were checked on a second thread')
  t.same(viaThread.problems, ['record-digest'], 'the forged record is named')
  t.same(
    viaThread.entries.map(e => [e.id, e.lamport, e.commit]),
    made.map(m => [m.id, m.lamport, m.commit]),
    'every other record, in lane order',
  )

  // the honest lane again: the same entries with and without the thread
  await git(repo, 'update-ref', ref, made[n - 1]!.commit!)
  const withThread = await cold(repo, true)
  process.env.EXP_CHECK_THREAD = '0'
  t.teardown(() => delete process.env.EXP_CHECK_THREAD)
  const opened = CheckPool.opened
  const inProcess = await cold(repo, true)
  delete process.env.EXP_CHECK_THREAD
  t.equal(CheckPool.opened, opened, 'EXP_CHECK_THREAD=0 checks in process')
  t.same(withThread, inProcess, 'the same entries, facts and problems either way')
  t.equal(withThread.entries.length, n)
})

t.test('a CheckPool answers as the checks in process do, and refuses once closed', async t => {
  const pool = CheckPool.open()
  if (!pool) return void t.pass('one CPU, or the worker module is not built: nothing to check')
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const made = await s.appendBatch([1, 2, 3].map(k => sampleDraft('note', k)), {lane: 'p'})
  await s.close()
  const bytes = await Promise.all(made.map(async m => Buffer.from(await git(repo, 'cat-file', 'blob', `refs/research/lanes/p:${(await git(repo, 'ls-tree', '-r', '--name-only', 'refs/research/lanes/p')).split('\n').find(f => f.includes(m.id))!}`))))
  // one in shared memory (passed as a place), one copied, one with a wrong lamport
  const shared = Buffer.from(new SharedArrayBuffer(bytes[0]!.length + 8), 4, bytes[0]!.length)
  bytes[0]!.copy(shared)
  const given = [shared, bytes[1]!, bytes[2]!]
  const lamports = [made[0]!.lamport, made[1]!.lamport, made[2]!.lamport + 1]
  const got = await pool.check('p', made.map(m => m.id), lamports, given)
  const want = given.map((b, k) => checkOne(b, {lane: 'p', kind: 'note', id: made[k]!.id, lamport: lamports[k]}))
  t.same(got, want)
  t.ok(got[0] && !got[0].problems && !got[1]!.problems, 'the honest ones pass')
  t.match(got[2], {problems: [{code: 'record-mismatch'}]}, 'the wrong lamport is named')
  await pool.close()
  await t.rejects(pool.check('p', [made[0]!.id], [made[0]!.lamport], [bytes[0]!]), /closed/)
})

t.test('a record that fails its checks on an otherwise plain lane: named and left out by the plain read itself, as the general reader names it', async t => {
  for (const n of [40, 1100]) {
    const repo = await makeRepo(t)
    const s = await GitRecordStore.open(repo)
    await s.appendBatch(Array.from({length: n}, (_, i) => sampleDraft('note', i)), {lane: 'p'})
    // two records as exp writes them, each then changed by the one who pushes it: out of
    // canonical form (a space) and not hashing to its digest
    const ref = 'refs/research/lanes/p'
    const forged: string[] = []
    const where: [string, string][] = []
    for (const [k, edit] of [
      [n, (b: string) => b.replace('{"body"', '{ "body"')],
      [n + 1, (b: string) => b.replace(`"text":"note ${n + 1}"`, '"text":"forged"')],
    ] as const) {
      const [r] = await s.appendBatch([sampleDraft('note', k)], {lane: 'p'})
      const file = (await git(repo, 'ls-tree', '-r', '--name-only', ref)).split('\n').find(f => f.includes(r!.id))!
      const honest = await git(repo, 'show', `${ref}:${file}`)
      const message = await git(repo, 'log', '-1', '--format=%B', ref)
      await git(repo, 'update-ref', ref, `${ref}^`)
      where.push([(await handCommit(repo, 'p', file, edit(honest), message)).trim(), file])
      forged.push(r!.id)
    }
    await s.append(sampleDraft('note', n + 2), {lane: 'p'})
    await s.close()
    const read = async (native: boolean) => {
      fs.rmSync(path.join(repo, '.git/exp'), {recursive: true, force: true})
      const st = await GitRecordStore.open(repo, {native, onWarning: () => undefined})
      try {
        const l = await st.ledger()
        return {entries: l.entries.map(pick), problems: l.problems.map(p => ({...p}))}
      } finally {
        await st.close()
      }
    }
    const before = {...fullReads}
    const fast = await read(true)
    t.equal(fullReads.plain, before.plain + 1, `${n}: the lane was read plain`)
    t.equal(fullReads.general, before.general, `${n}: not handed to the general reader`)
    t.same(fast.problems.map(p => [p.code, p.id]), [['record-not-canonical', forged[0]], ['record-digest', forged[1]]], `${n}: both named, oldest first`)
    t.equal(fast.entries.length, n + 1, `${n}: every other record is read`)
    t.notOk(fast.entries.some(e => forged.includes(e.id)), `${n}: the forged records are left out`)
    // (the in-process general reader takes ~8 s over 1,100 records: compared on the small lane,
    // whose records are checked by the same code in this thread that the large lane's are on the pool's)
    if (n < 1000) t.same(fast, await read(false), `${n}: the same entries and problems (code, message, ref, commit, path) as the general reader's`)
    t.same(fast.problems.map(p => [p.commit, p.path, p.ref]), where.map(([c, f]) => [c, f, ref]), `${n}: each named at the commit that added it, with its path and lane`)
    // and the cache holds them: a warm read in a new store names the same problems
    const warm = await GitRecordStore.open(repo, {onWarning: () => undefined})
    const again = await warm.ledger()
    t.same(again.problems.map(p => ({...p})), fast.problems, `${n}: a warm read names them too`)
    await warm.close()
  }
})

t.test("a later record commit that also rewrites an earlier record's file: the earlier record keeps the bytes its own commit added", async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const made = await s.appendBatch(Array.from({length: 40}, (_, i) => sampleDraft('note', i)), {lane: 'p'})
  // the next record, as exp writes it, but its commit also changes record 10's file
  const [next] = await s.appendBatch([sampleDraft('note', 40)], {lane: 'p'})
  await s.close()
  const ref = 'refs/research/lanes/p'
  const victim = made[10]!
  const tip = (await git(repo, 'rev-parse', ref)).trim()
  const idx = path.join(repo, '.git/tmp-index')
  const env = {GIT_INDEX_FILE: idx}
  await gitIn(repo, ['read-tree', tip], '', env)
  const file = (await gitIn(repo, ['ls-files'], '', env)).split('\n').find(f => f.includes(victim.id))!
  const honest = await git(repo, 'show', `${ref}:${file}`)
  const bad = (await gitIn(repo, ['hash-object', '-w', '--stdin'], honest.replace('"text":"note 10"', '"text":"forged"'))).trim()
  await gitIn(repo, ['update-index', '--cacheinfo', `100644,${bad},${file}`], '', env)
  const tree = (await gitIn(repo, ['write-tree'], '', env)).trim()
  const message = await git(repo, 'log', '-1', '--format=%B', ref)
  const forged = (await gitIn(repo, ['commit-tree', tree, '-p', `${tip}~1`, '-m', message.trim()], '')).trim()
  await git(repo, 'update-ref', ref, forged)
  for (const native of [true, false]) {
    const r = await cold(repo, native)
    t.equal(r.entries.find(e => e.id === victim.id)?.digest, victim.digest, `native=${native}: the record is the one its own commit added`)
    t.notOk(r.entries.some(e => e.id === next!.id), `native=${native}: the later commit is no clean record commit: its record is left out`)
    t.same(r.problems, ['commit-changes'], `native=${native}: and the commit that rewrote the earlier file is named`)
    t.equal(r.entries.length, 40)
  }
})
