import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {NativeReader} from '../../src/store/git/reader.js'
import {makeRepo, git, gitIn} from '../helpers/repo.js'

// Found by an attack sweep of the store: one damaged object in a pack killed the shared
// `git cat-file --batch`, every request queued behind it failed with "git cat-file exited",
// and lanes that had nothing damaged were reported unreadable; `exp fsck` stopped with an
// internal error.
t.test('a damaged packed object: that request fails naming the object, the others are answered by a new cat-file', async t => {
  const repo = await makeRepo(t)
  const blob = async (s: string) => (await gitIn(repo, ['hash-object', '-w', '--stdin'], s)).trim()
  const bad = await blob(`${'damaged '.repeat(200)}\n`)
  const good = await Promise.all(Array.from({length: 80}, (_, i) => blob(`good ${i}\n`)))
  // the damaged one alone in a pack of its own, one byte of its compressed data flipped
  const packDir = path.join(repo, '.git/objects/pack')
  const name = (await gitIn(repo, ['pack-objects', path.join(packDir, 'pack')], `${bad}\n`)).trim()
  fs.rmSync(path.join(repo, '.git/objects', bad.slice(0, 2), bad.slice(2)))
  const pack = path.join(packDir, `pack-${name}.pack`)
  const bytes = fs.readFileSync(pack)
  bytes[12 + 8] ^= 0xff // (the first object's data starts after the 12-byte pack header and its own header)
  fs.chmodSync(pack, 0o644)
  fs.writeFileSync(pack, bytes)
  // the good ones packed too (no loose copy a read could take in process instead)
  await gitIn(repo, ['pack-objects', path.join(packDir, 'pack')], `${good.join('\n')}\n`)
  await git(repo, 'prune-packed')
  t.notOk(fs.existsSync(path.join(repo, '.git/objects', good[5]!.slice(0, 2), good[5]!.slice(2))))
  t.rejects(git(repo, 'cat-file', '-p', bad), 'git itself cannot read it')
  const reader = new NativeReader(path.join(repo, '.git'))
  t.teardown(() => reader.close())
  // more than a small read: all of it through cat-file, the damaged one first
  const got = await reader.readMany([bad, ...good])
  t.match(got[0], {message: new RegExp(`${bad} could not be read .*missing or damaged`)})
  t.same(got.slice(1).map(b => (b instanceof Error ? b.message : b.toString())), good.map((_, i) => `good ${i}\n`), 'every other object is read')
  // and single reads after it
  await t.rejects(reader.read(bad), {message: new RegExp(bad)})
  t.equal((await reader.read(good[3]!)).data.toString(), 'good 3\n')
  const queued = await Promise.allSettled([reader.read(bad), reader.read(good[5]!), reader.read(good[6]!)])
  t.equal(queued[0].status, 'rejected')
  t.same(queued.slice(1).map(q => (q.status === 'fulfilled' ? q.value.data.toString() : q.reason)), ['good 5\n', 'good 6\n'], 'reads queued behind it are answered')
})
