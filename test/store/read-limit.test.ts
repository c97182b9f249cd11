import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {CatFileSpool} from '../../src/store/git/cat-file-spool.js'
import {CatFileBatch} from '../../src/store/git/native.js'
import {NativeReader} from '../../src/store/git/reader.js'
import {ObjectTooLarge} from '../../src/store/git/objects.js'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {recordPath} from '../../src/records/index.js'
import {execFile} from 'node:child_process'
import {makeRepo, git, gitIn, node, writeBlobs} from '../helpers/repo.js'
import {ROOT} from '../helpers/cli.js'
import {sampleDraft} from '../helpers/records.js'

/**
 * A read takes no record file larger than its limit (exp.maxRecordBytes, never below 16 MiB):
 * a hostile lane can put a blob of any size at a record's path. The cat-file readers pass
 * over such an object without holding it, and the record is named, not read.
 */

t.test('every cat-file reader gives an object over the limit as ObjectTooLarge, in its place, and reads on', async t => {
  const repo = await makeRepo(t)
  const big = Buffer.alloc(3_000_000, 'x\n 1 2\n')
  const small = ['first', 'second', 'third'].map(s => Buffer.from(`${s}\n`))
  const contents = [small[0]!, big, small[1]!, Buffer.concat([big, big]), small[2]!]
  const oids = await writeBlobs(repo, contents)
  // loose objects first (the in-process path of a small read), then packed
  const gitDir = path.join(repo, '.git')
  const check = (how: string, got: (Buffer | Error)[]) => {
    t.same(
      got.map(g => (g instanceof Buffer ? g.toString() : g instanceof ObjectTooLarge ? `too large: ${g.size}` : `error: ${(g as Error).message}`)),
      ['first\n', 'too large: 3000000', 'second\n', 'too large: 6000000', 'third\n'],
      `${how}: the small objects read, the large ones named with their size`,
    )
    t.match((got[1] as Error).message, `${oids[1]} is 3000000 bytes, over the 1000000-byte limit`)
  }
  for (const packed of [false, true]) {
    if (packed) await git(repo, 'gc', '-q')
    const where = packed ? 'packed' : 'loose'
    const pipe = new CatFileBatch(gitDir)
    check(`pipe, ${where}`, await pipe.readBatch(oids, undefined, 1_000_000))
    // and the same reader goes on with objects after the skipped ones
    t.equal(String((await pipe.readBatch([oids[4]!], undefined, 1_000_000))[0]), 'third\n', `pipe, ${where}: the stream is in step after the skips`)
    t.ok((await pipe.readBatch([oids[1]!]))[0] instanceof Buffer, `pipe, ${where}: without a limit the large object is read`)
    await pipe.close()
    const spool = CatFileSpool.open(gitDir, path.join(gitDir, 'exp'))!
    check(`spool, ${where}`, await spool.readMany(oids, undefined, 1_000_000))
    t.equal(String((await spool.readMany([oids[4]!], undefined, 1_000_000))[0]), 'third\n', `spool, ${where}: in step after the skips`)
    await spool.close()
    const reader = new NativeReader(gitDir)
    check(`native reader, ${where}`, await reader.readMany(oids, b => Buffer.from(b), 1_000_000))
    await reader.close()
  }
})

t.test('a lane with a huge blob at a record path: the record is named record-too-large, the others are read; the limit follows exp.maxRecordBytes', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const made = await s.appendBatch([1, 2, 3].map(n => sampleDraft('note', n)), {lane: 'x'})
  await s.close()
  // a commit that looks like a record commit, adding 17 MB at a record's path
  const id = 'nt-0123456789abcdef01234567'
  const file = recordPath('note', id)
  const [blob] = await writeBlobs(repo, [Buffer.alloc(17 * 1024 * 1024, '{"x":1}')])
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/x')).trim()
  const env = {GIT_INDEX_FILE: path.join(repo, '.git', 'tmp-index')}
  await gitIn(repo, ['read-tree', tip], '', env)
  await gitIn(repo, ['update-index', '--add', '--cacheinfo', `100644,${blob},${file}`], '', env)
  const tree = (await gitIn(repo, ['write-tree'], '', env)).trim()
  const forged = (await gitIn(repo, ['commit-tree', tree, '-p', tip, '-m', `note: big\n\nExp-Record: note/${id}\nExp-Schema: note@1\nExp-Lamport: 99`], '')).trim()
  await git(repo, 'update-ref', 'refs/research/lanes/x', forged)

  for (const native of [true, false]) {
    fs.rmSync(path.join(repo, '.git', 'exp'), {recursive: true, force: true})
    const store = await GitRecordStore.open(repo, {native, onWarning: () => undefined})
    const l = await store.ledger()
    t.same(l.entries.map(e => e.id), made.map(m => m.id), `native=${native}: the three records are read`)
    const p = l.problems.find(x => x.code === 'record-too-large')
    t.ok(p, `native=${native}: the huge file is named record-too-large`)
    t.match(p, {path: file, commit: forged, message: /is 17825792 bytes, over the 16777216-byte limit of a read/, hint: /exp\.maxRecordBytes/})
    const report = await fsck(store)
    t.ok(report.problems.some(x => x.code === 'record-too-large' && x.path === file), `native=${native}: fsck names it too`)
    await store.close()
  }

  // a lane written under a higher limit: raised again, the file is read (and checked: it is no record)
  await git(repo, 'config', 'exp.maxRecordBytes', '32m')
  fs.rmSync(path.join(repo, '.git', 'exp'), {recursive: true, force: true})
  const store = await GitRecordStore.open(repo, {onWarning: () => undefined})
  t.teardown(() => store.close())
  const l = await store.ledger()
  t.notOk(l.problems.some(x => x.code === 'record-too-large'), 'under a 32 MiB limit the file is read')
  t.ok(l.problems.some(x => x.code === 'record-invalid' && x.path === file), 'and refused by the checks as no record')
})

t.test('an object over the limit is never held: peak memory of a read with the limit stays far below one without', {skip: process.platform !== 'linux' && 'reads the peak memory from /proc'}, async t => {
  const repo = await makeRepo(t)
  const size = 64 * 1024 * 1024
  const [oid] = await writeBlobs(repo, [Buffer.alloc(size, 'exp ')])
  // a child process per read (peak RSS is per process), through the built modules
  const script = `
    const [{CatFileBatch}, {CatFileSpool}] = await Promise.all([import(${JSON.stringify(path.join(ROOT, 'dist/store/git/native.js'))}), import(${JSON.stringify(path.join(ROOT, 'dist/store/git/cat-file-spool.js'))})])
    const [how, max] = process.argv.slice(1)
    const gitDir = ${JSON.stringify(path.join(repo, '.git'))}
    const r = how === 'pipe' ? new CatFileBatch(gitDir) : CatFileSpool.open(gitDir, gitDir + '/exp')
    const got = await (how === 'pipe' ? r.readBatch([${JSON.stringify(oid)}], undefined, max ? Number(max) : undefined) : r.readMany([${JSON.stringify(oid)}], undefined, max ? Number(max) : undefined))
    await r.close()
    // (VmHWM: the peak of this program's own memory; getrusage's maxRSS also counts the parent's at the fork)
    const hwm = Number(/VmHWM:\\s+(\\d+) kB/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))[1]) * 1024
    console.log(JSON.stringify({read: got[0] instanceof Buffer ? got[0].length : got[0].constructor.name, rss: hwm}))
  `
  const run = async (how: string, max?: number) => {
    const [cmd, args] = node(['--input-type=module', '-e', script, how, ...(max ? [String(max)] : [])])
    const out = await new Promise<string>((resolve, reject) => execFile(cmd, args, {maxBuffer: 1 << 20}, (e, so) => (e ? reject(e) : resolve(so))))
    return JSON.parse(out) as {read: number | string; rss: number}
  }
  for (const how of ['pipe', 'spool']) {
    const whole = await run(how)
    const skipped = await run(how, 1024 * 1024)
    t.equal(whole.read, size, `${how}: without a limit the object is read whole`)
    t.equal(skipped.read, 'ObjectTooLarge', `${how}: with a 1 MiB limit it is not read`)
    t.ok(skipped.rss < whole.rss - 48 * 1024 * 1024, `${how}: peak RSS ${(skipped.rss / 2 ** 20).toFixed(0)} MB with the limit, ${(whole.rss / 2 ** 20).toFixed(0)} MB without`)
  }
})
