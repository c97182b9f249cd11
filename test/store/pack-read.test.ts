import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {GitRecordStore} from '../../src/store/index.js'
import {readPacked} from '../../src/store/git/pack-read.js'
import {makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {countGitCalls} from '../helpers/git-calls.js'
import {PACKED_IN_PROCESS} from '../../src/store/git/reader.js'

// a packed object stored whole is read in process until cat-file runs (pack-read.ts, reader.ts):
// the bytes git has, or nothing (cat-file then reads it, and names what is wrong)

async function packedRepo(t: Parameters<typeof makeRepo>[0]): Promise<{repo: string; git: (...a: string[]) => string}> {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  await store.appendBatch(Array.from({length: 40}, (_, i) => sampleDraft('note', i)), {lane: 'p'})
  await store.close()
  const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a]).toString()
  git('gc', '-q', '--prune=now')
  return {repo, git}
}

t.test('commits, trees and blobs of a pack: the bytes cat-file gives, checked against their ids', async t => {
  const {repo, git} = await packedRepo(t)
  t.equal(fs.readdirSync(path.join(repo, '.git', 'objects')).filter(d => /^[0-9a-f]{2}$/.test(d)).length, 0, 'nothing loose')
  const listed = git('verify-pack', '-v', ...fs.readdirSync(path.join(repo, '.git/objects/pack')).filter(f => f.endsWith('.idx')).map(f => path.join(repo, '.git/objects/pack', f)))
  // `oid type size size-in-pack offset [depth base]`: whole objects have five fields
  const rows = listed.split('\n').map(l => l.split(/\s+/)).filter(f => /^[0-9a-f]{40}$/.test(f[0]!))
  const whole = rows.filter(f => f.length === 5)
  const deltas = rows.filter(f => f.length === 7)
  t.ok(whole.length > 100, `${whole.length} whole objects`)
  let read = 0
  for (const [oid, type] of whole) {
    const got = readPacked(path.join(repo, '.git'), oid!)
    t.ok(got, `${type} ${oid} read`)
    if (!got) continue
    t.equal(got.type, type)
    t.same(got.data, execFileSync('git', ['-C', repo, 'cat-file', type!, oid!]))
    read++
  }
  t.equal(read, whole.length)
  t.ok(deltas.length > 0, `the pack holds deltas too (${deltas.length})`)
  for (const [oid] of deltas) t.equal(readPacked(path.join(repo, '.git'), oid!), undefined, 'a delta is left to cat-file')
  t.equal(readPacked(path.join(repo, '.git'), 'f'.repeat(40)), undefined, 'an id no pack lists')
  t.equal(readPacked(path.join(repo, '.git'), '../../x'), undefined, 'not an id')
  const big = whole.find(f => Number(f[2]) > 100)!
  t.equal(readPacked(path.join(repo, '.git'), big[0]!, 100), undefined, 'larger than asked for')
})

t.test('a damaged pack: nothing read in process; the reader falls back to cat-file, which names it', async t => {
  const {repo, git} = await packedRepo(t)
  const tip = git('rev-parse', 'refs/research/lanes/p').trim()
  const dir = path.join(repo, '.git/objects/pack')
  const idx = fs.readdirSync(dir).find(f => f.endsWith('.idx'))!
  const listed = git('verify-pack', '-v', path.join(dir, idx))
  const row = listed.split('\n').find(l => l.startsWith(tip))!.split(/\s+/)
  const pack = path.join(dir, idx.replace(/\.idx$/, '.pack'))
  const bytes = fs.readFileSync(pack)
  // a byte inside the tip commit's deflated data
  const at = Number(row[4]) + Number(row[3]) - 6
  bytes[at] = bytes[at]! ^ 0xff
  fs.chmodSync(pack, 0o644)
  fs.writeFileSync(pack, bytes)
  t.equal(readPacked(path.join(repo, '.git'), tip), undefined)
  const store = await GitRecordStore.open(repo, {native: true})
  t.teardown(() => store.close())
  await t.rejects(store.reader.read(tip), 'cat-file refuses it too')
})

t.test('a pack removed under its index (a repack between the two reads): nothing read in process, the objects from where git has them now', async t => {
  const {repo, git} = await packedRepo(t)
  const tip = git('rev-parse', 'refs/research/lanes/p').trim()
  const want = git('cat-file', 'commit', tip)
  const dir = path.join(repo, '.git/objects/pack')
  const idx = fs.readdirSync(dir).find(f => f.endsWith('.idx'))!
  const pack = path.join(dir, idx.replace(/\.idx$/, '.pack'))
  // the objects loose again (where a repack would have moved them), then the old pack gone and its index left behind
  const scratch = path.join(repo, '.git/unpacked')
  execFileSync('git', ['init', '-q', '--bare', scratch])
  execFileSync('git', ['-C', scratch, 'unpack-objects', '-q'], {input: fs.readFileSync(pack)})
  for (const d of fs.readdirSync(path.join(scratch, 'objects')).filter(d => /^[0-9a-f]{2}$/.test(d))) fs.cpSync(path.join(scratch, 'objects', d), path.join(repo, '.git/objects', d), {recursive: true})
  fs.rmSync(scratch, {recursive: true})
  fs.rmSync(pack)
  t.equal(readPacked(path.join(repo, '.git'), tip), undefined, 'no throw, nothing read: the pack is not there')
  const store = await GitRecordStore.open(repo, {native: true, onWarning: () => undefined})
  t.teardown(() => store.close())
  t.same((await store.reader.read(tip)).data, Buffer.from(want), 'cat-file reads the loose copy')
  const ledger = await store.ledger()
  t.equal(ledger.entries.length, 40, 'and the whole lane reads')
  t.same(ledger.problems, [])
})

t.test('a warm ledger of a packed repository starts no git process; a missing tip is still a lane that cannot be read', async t => {
  const {repo} = await packedRepo(t)
  const first = await GitRecordStore.open(repo, {native: true})
  t.equal((await first.ledger()).size, 40)
  await first.close()
  const calls = countGitCalls(t)
  const warm = await GitRecordStore.open(repo, {native: true})
  t.equal((await warm.ledger()).size, 40)
  await warm.close()
  t.equal(calls.calls(), '', 'no git started')
  // the tip's object gone (what a gc that raced an append leaves): the cache does not stand for it
  const dir = path.join(repo, '.git/objects/pack')
  for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f))
  const gone = await GitRecordStore.open(repo, {native: true, onWarning: () => undefined})
  t.teardown(() => gone.close())
  const ledger = await gone.ledger()
  t.equal(ledger.size, 0)
  t.ok(ledger.problems.some(p => p.ref === 'refs/research/lanes/p' && /missing/.test(p.message)), JSON.stringify(ledger.problems))
})

t.test('a reader reads the first PACKED_IN_PROCESS (24) whole packed objects in process, then starts cat-file for the rest', async t => {
  const {repo, git} = await packedRepo(t)
  const idx = fs.readdirSync(path.join(repo, '.git/objects/pack')).filter(f => f.endsWith('.idx'))
  const whole = git('verify-pack', '-v', ...idx.map(f => path.join(repo, '.git/objects/pack', f)))
    .split('\n')
    .map(l => l.split(/\s+/))
    .filter(f => /^[0-9a-f]{40}$/.test(f[0]!) && f.length === 5)
    .map(f => f[0]!)
  const calls = countGitCalls(t)
  const store = await GitRecordStore.open(repo, {native: true})
  t.teardown(() => store.close())
  t.ok(whole.length > PACKED_IN_PROCESS, `${whole.length} whole objects`)
  for (const oid of whole.slice(0, PACKED_IN_PROCESS)) await store.reader.read(oid)
  t.equal(calls.calls(), '', `${PACKED_IN_PROCESS} read in process`)
  const more = await store.reader.read(whole[PACKED_IN_PROCESS]!)
  t.same(more.data, execFileSync(calls.real, ['-C', repo, 'cat-file', more.type, whole[PACKED_IN_PROCESS]!]))
  t.match(calls.calls(), /cat-file --batch/, 'the next through cat-file')
})
