import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {spawnSync} from 'node:child_process'
import {CatFileSpool} from '../../src/store/git/cat-file-spool.js'
import {CatFileBatch} from '../../src/store/git/native.js'
import {findGarbage} from '../../src/store/git/gc.js'
import {makeRepo, tempDir, writeBlobs} from '../helpers/repo.js'

/**
 * The spool reader (cat-file-spool.ts): `git cat-file --batch` writing to an unlinked file
 * instead of a pipe, for the full read of a large lane. It must give what the pipe reader
 * gives, object for object, leave nothing on disk, and never hang when cat-file fails.
 */

const spoolFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter(f => f.startsWith('spool.')) : [])

for (const commands of [true, false])
t.test(`gives every object in order, across batches in flight at once, as the pipe reader does (${commands ? '--batch-command --buffer' : '--batch'})`, async t => {
  const repo = await makeRepo(t)
  const contents = [
    Buffer.from('{"a":1}\n'),
    Buffer.alloc(0),
    // larger than the spool's 1 MiB read buffer, with newlines and spaces that look like headers
    Buffer.from(`x 1 2\n`.repeat(600_000)),
    Buffer.from([0, 10, 32, 255, 0]),
    ...Array.from({length: 300}, (_, i) => Buffer.from(`record ${i} ${'y'.repeat(i * 37)}\n`)),
  ]
  const oids = await writeBlobs(repo, contents)
  const dir = path.join(repo, '.git', 'exp')
  const spool = CatFileSpool.open(path.join(repo, '.git'), dir, commands)
  if (!spool) return t.fail('no spool on this platform')
  t.same(spoolFiles(dir), [], 'the spool file has no name while it is read')
  const kept: Buffer[] = []
  const keep = (b: Buffer) => {
    const c = Buffer.from(b)
    kept.push(c)
    return c
  }
  // three batches asked for before any is answered, one with a keep
  const parts = [oids.slice(0, 3), oids.slice(3, 150), oids.slice(150)]
  const got = await Promise.all([spool.readMany(parts[0]!), spool.readMany(parts[1]!, keep), spool.readMany(parts[2]!)])
  await spool.close()
  const flat = got.flat()
  t.equal(flat.length, contents.length)
  t.ok(flat.every((b, i) => b instanceof Buffer && b.equals(contents[i]!)), 'every object is the bytes git stored, in the order asked')
  t.equal(kept.length, parts[1]!.length, 'keep saw each object of its batch')
  const pipe = new CatFileBatch(path.join(repo, '.git'))
  const viaPipe = await pipe.readBatch(oids)
  await pipe.close()
  t.ok(viaPipe.every((b, i) => b instanceof Buffer && b.equals(flat[i] as Buffer)), 'the same as through the pipe')
  t.same(spoolFiles(dir), [], 'nothing left behind')
})

for (const commands of [true, false])
t.test(`a missing object is an error in its place; the others are read (${commands ? '--batch-command' : '--batch'})`, async t => {
  const repo = await makeRepo(t)
  const [a, b] = await writeBlobs(repo, [Buffer.from('one'), Buffer.from('two')])
  const spool = CatFileSpool.open(path.join(repo, '.git'), path.join(repo, '.git', 'exp'), commands)!
  const missing = 'deadbeef'.repeat(5)
  const got = await spool.readMany([a!, missing, b!])
  const later = await spool.readMany([b!])
  await spool.close()
  t.equal(String(got[0]), 'one')
  t.match((got[1] as Error).message, `${missing} is missing from the object database`)
  t.equal(String(got[2]), 'two')
  t.equal(String(later[0]), 'two', 'the reader goes on after a missing object')
})

for (const commands of [true, false])
t.test(`requests ended before their answers are in: every answer still comes (${commands ? '--batch-command' : '--batch'})`, async t => {
  const repo = await makeRepo(t)
  const contents = Array.from({length: 400}, (_, i) => Buffer.from(`answer ${i} ${'z'.repeat(i * 53)}\n`))
  const oids = await writeBlobs(repo, contents)
  const dir = path.join(repo, '.git', 'exp')
  const spool = CatFileSpool.open(path.join(repo, '.git'), dir, commands)!
  const pending = [spool.readMany(oids.slice(0, 200)), spool.readMany(oids.slice(200))]
  // (what a full read does once it has asked for the last record file)
  spool.endRequests()
  spool.endRequests()
  const got = (await Promise.all(pending)).flat()
  t.ok(got.every((b, i) => b instanceof Buffer && b.equals(contents[i]!)), 'every object, in order')
  await spool.close()
  t.same(spoolFiles(dir), [], 'nothing left behind')
})

t.test('when cat-file fails, every request is answered with the error, not left waiting', async t => {
  const notRepo = tempDir(t)
  const spool = CatFileSpool.open(path.join(notRepo, 'nothing-here'), path.join(notRepo, 'exp'))!
  const got = await Promise.race([spool.readMany(['a'.repeat(40), 'b'.repeat(40)]), new Promise<string>(resolve => setTimeout(() => resolve('hung'), 10_000).unref())])
  await spool.close()
  t.not(got, 'hung')
  const errs = got as Error[]
  t.equal(errs.length, 2)
  t.ok(errs.every(e => e instanceof Error), 'both are errors')
  t.match(errs[0]!.message, /cat-file exited before answering: .*(not a git repository|nothing-here)/)
  t.same(spoolFiles(path.join(notRepo, 'exp')), [])
  const after = await spool.readMany(['c'.repeat(40)])
  t.ok(after[0] instanceof Error, 'a closed reader answers with an error')
})

t.test('a spool folder that cannot be written: no spool (the caller reads through the pipe)', async t => {
  const dir = tempDir(t)
  fs.writeFileSync(path.join(dir, 'exp'), 'a file where the folder would be')
  t.equal(CatFileSpool.open(dir, path.join(dir, 'exp')), undefined)
})

t.test("a spool left by a process killed before it unlinked it is garbage for `exp gc`; a live process's is not", async t => {
  const repo = await makeRepo(t)
  const dir = path.join(repo, '.git', 'exp')
  fs.mkdirSync(dir, {recursive: true})
  const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!
  fs.writeFileSync(path.join(dir, `spool.0123456789ab.${dead}.tmp`), 'x')
  fs.writeFileSync(path.join(dir, `spool.0123456789ab.${process.pid}.tmp`), 'x')
  const found = findGarbage(path.join(repo, '.git')).map(f => path.basename(f))
  t.ok(found.includes(`spool.0123456789ab.${dead}.tmp`), 'the dead process spool is found')
  t.notOk(found.includes(`spool.0123456789ab.${process.pid}.tmp`), 'the live one is left alone')
})
