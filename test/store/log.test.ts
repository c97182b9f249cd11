import t from 'tap'
import {GitRecordStore} from '../../src/store/index.js'
import {diffTrees, laneCommitChunksNative, laneCommitsIso, laneCommitsNative, nearLaneCommits} from '../../src/store/git/log.js'
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {RecentObjects} from '../../src/store/git/reader.js'
import {ObjectTooLarge} from '../../src/store/git/objects.js'
import {X01} from '../../src/store/git/verify.js'
import {makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {countGitCalls} from '../helpers/git-calls.js'

async function laneRepo(t: Parameters<typeof makeRepo>[0], n: number): Promise<{repo: string; store: GitRecordStore; tip: string}> {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  t.teardown(() => store.close())
  const res = await store.appendBatch(Array.from({length: n}, (_, i) => sampleDraft('note', i)), {lane: 'l'})
  return {repo, store, tip: res.at(-1)!.commit!}
}

t.test('git log runs ahead of a slow consumer: every commit arrives once, oldest first, in chunks of the size asked', async t => {
  const {store, tip} = await laneRepo(t, 40)
  const want = (await laneCommitsIso(store.reader, tip)).map(c => c.oid)
  const got: string[] = []
  const sizes: number[] = []
  for await (const chunk of laneCommitChunksNative(store.commonDir, tip, undefined, 3, 2)) {
    sizes.push(chunk.length)
    got.push(...chunk.map(c => c.oid))
    // a consumer slower than git log: the reader pauses git's output after two chunks
    await new Promise(r => setTimeout(r, 5))
  }
  t.same(got, want)
  t.same(sizes, [...Array(13).fill(3), 1])
})

t.test('a consumer that stops early ends git log; a missing stop commit is an error', async t => {
  const {store, tip} = await laneRepo(t, 30)
  let chunks = 0
  for await (const chunk of laneCommitChunksNative(store.commonDir, tip, undefined, 4, 2)) {
    t.equal(chunk.length, 4)
    if (++chunks === 2) break
  }
  t.equal(chunks, 2)
  const missing = '0'.repeat(40)
  await t.rejects(async () => {
    for await (const _ of laneCommitChunksNative(store.commonDir, tip, missing, 4)) void _
  }, /git log .* failed/)
})

// what a process reads again after its own appends (lane-read.ts incrementalChunks): a few
// commits through the running cat-file, the same commits git log lists; anything else is left
// to git log (undefined), never guessed
t.test('the commits since a near stop are read without git log, as git log lists them; a far, foreign or unreadable stop is left to git log', async t => {
  const {repo, store: writer, tip} = await laneRepo(t, 30)
  // (a store of its own: the commits the writer made are in its memory, and a walk of those is not counted)
  const store = await GitRecordStore.open(repo, {native: true})
  t.teardown(() => store.close())
  const all = await laneCommitsNative(store.commonDir, tip)
  const stop = all[26]!.oid
  const near = await nearLaneCommits(store.reader, tip, stop, 16)
  t.same(near, await laneCommitsNative(store.commonDir, tip, stop), 'oids, parents, messages and changes as git log --raw gives them')
  t.equal(near!.length, 3)
  t.same(await nearLaneCommits(store.reader, tip, tip, 16), [], 'nothing new')
  t.equal(await nearLaneCommits(store.reader, tip, all[5]!.oid, 16), undefined, 'further back than asked')
  t.equal((await nearLaneCommits(store.reader, tip, all[5]!.oid, 30))!.length, 24)
  t.same(await nearLaneCommits(writer.reader, tip, all[5]!.oid, 16), await laneCommitsNative(store.commonDir, tip, all[5]!.oid), "the writer's own 24 commits: walked in memory, not counted against the 16")
  const other = await store.appendBatch([sampleDraft('note', 99)], {lane: 'other'})
  t.equal(await nearLaneCommits(store.reader, tip, other[0]!.commit!, 64), undefined, 'not an ancestor (a rewritten lane)')
  t.equal(await nearLaneCommits(store.reader, 'f'.repeat(40), stop, 16), undefined, 'a tip that is not there')
  const blob = (await store.reader.read(all[29]!.changes[0]!.blob, 1 << 20)).type
  t.equal(blob, 'blob')
  t.equal(await nearLaneCommits(store.reader, all[29]!.changes[0]!.blob, stop, 16), undefined, 'a tip that is a blob')
})

// the trees and commits an append wrote are what its process reads back next (reader.ts,
// RecentObjects): answered from memory with git's bytes, within the read's limit, and bounded
t.test("a reader answers what its process just wrote with git's bytes, refuses one over the limit, and keeps at most 16 MiB", async t => {
  const {store, tip} = await laneRepo(t, 5)
  const want = execFileSync('git', ['--git-dir', store.commonDir, 'cat-file', 'commit', tip])
  const file = path.join(store.commonDir, 'objects', tip.slice(0, 2), tip.slice(2))
  t.ok(fs.existsSync(file), 'the commit is on disk, loose')
  fs.rmSync(file)
  const o = await store.reader.read(tip)
  t.equal(o.type, 'commit')
  t.same(o.data, want, 'the bytes git has under its id, from memory (its file removed)')
  const over = await store.reader.read(tip, 10).then(() => undefined, (e: unknown) => e)
  t.ok(over instanceof ObjectTooLarge, 'over the limit of the read: refused, as from disk')
  const recent = new RecentObjects()
  const oid = (i: number) => i.toString(16).padStart(40, '0')
  for (let i = 0; i < 400; i++) recent.add(oid(i), 'tree', Buffer.alloc(60_000, i))
  t.equal(recent.get(oid(0)), undefined, 'the oldest forgotten')
  t.same(recent.get(oid(399))?.data, Buffer.alloc(60_000, 399), 'the newest kept')
  const kept = Array.from({length: 400}, (_, i) => recent.get(oid(i))).filter(Boolean).length
  t.ok(kept * 60_000 <= 16 * 1024 * 1024 && kept > 200, `${kept} kept, within 16 MiB`)
  recent.add(oid(1000), 'tree', Buffer.alloc(70_000))
  t.equal(recent.get(oid(1000)), undefined, 'one over 64 KiB is not kept')
})

// exp run reads the ledger back after every batch of up to 64 episodes (128 records): with a
// near read of 64 commits at most, each of those reads started git log (a fork of a process of
// ~350 MB); the commits an append keeps in memory are walked without counting
t.test('a batch of 150 records read back by the process that wrote it starts no git log; a new process reads it through git log, the same', async t => {
  const repo = await makeRepo(t)
  const git = countGitCalls(t)
  const store = await GitRecordStore.open(repo, {native: true})
  t.teardown(() => store.close())
  await store.appendBatch([sampleDraft('note', 0)], {lane: 'l'})
  t.equal((await store.ledger()).size, 1)
  const made = await store.appendBatch(Array.from({length: 150}, (_, i) => sampleDraft('note', i + 1)), {lane: 'l'})
  git.clear()
  const ledger = await store.ledger()
  t.equal(ledger.size, 151)
  t.same(made.map(r => ledger.get(r.id)?.commit), made.map(r => r.commit), 'each record with the commit that added it')
  t.notMatch(git.calls(), /\blog\b/, 'no git log started')
  const other = await GitRecordStore.open(repo, {native: true, cache: false})
  t.teardown(() => other.close())
  const fresh = await other.ledger()
  t.match(git.calls(), /\blog\b/, 'a process that did not write them runs git log')
  t.same(fresh.entries.map(e => [e.id, e.commit, e.digest]), ledger.entries.map(e => [e.id, e.commit, e.digest]), 'and reads the same ledger')
})

// the near read's diff merges two sorted trees (log.ts diffTrees); trees in another order, or
// with names whose order differs between git and JavaScript (`a` a folder beside `a.b`, `a-b`),
// take the general way: either gives what git diff-tree gives
t.test('diffTrees gives the changes git diff-tree gives, for random trees of names git and JavaScript sort alike or not', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  t.teardown(() => store.close())
  const git = (args: string[], input?: string) => execFileSync('git', ['-C', repo, ...args], {input}).toString()
  let seed = 7
  const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n
  const names = ['a', 'a.b', 'a-b', 'b', 'ab', 'x.json', 'd0', 'd1']
  // the trees are drawn first, then written by git level by level, each level with one
  // `git mktree --batch` (a git process per blob and per tree took ~90 s here)
  const blobs = ['0', '1', '2'].map(text => git(['hash-object', '-w', '--stdin'], text).trim())
  interface Spec {
    entries: {mode: string; name: string; blob?: string; tree?: Spec}[]
    id?: string
  }
  const levels: Spec[][] = [[], [], []]
  const draw = (depth: number): Spec => {
    const spec: Spec = {entries: []}
    for (const name of names) {
      const r = rand(4)
      if (r === 0) continue
      if (r === 1 && depth < 2) spec.entries.push({mode: '040000', name, tree: draw(depth + 1)})
      else spec.entries.push({mode: rand(3) === 0 ? '100755' : '100644', name, blob: blobs[rand(3)]})
    }
    levels[depth]!.push(spec)
    return spec
  }
  const pairs = Array.from({length: 40}, () => [draw(0), draw(0)] as const)
  for (const level of [...levels].reverse()) {
    const input = level.map(s => s.entries.map(e => `${e.mode} ${e.tree ? 'tree' : 'blob'} ${e.tree ? e.tree.id : e.blob}\t${e.name}\n`).join('') + '\n').join('')
    const ids = git(['mktree', '--batch'], input).trim().split('\n')
    t.equal(ids.length, level.length, 'git wrote a tree for each one drawn')
    level.forEach((s, i) => (s.id = ids[i]))
  }
  // one diff-tree for every pair: each pair's lines follow the pair it echoes
  const raw = git(['diff-tree', '--stdin', '-r', '--no-renames', '--raw', '--no-abbrev'], pairs.map(([x, y]) => `${x.id} ${y.id}\n`).join(''))
  const wants = new Map<string, string[]>()
  let at: string[] = []
  for (const l of raw.split('\n').filter(Boolean)) {
    if (!l.startsWith(':')) wants.set(l, (at = []))
    else {
      const [meta, p] = l.split('\t')
      const [m1, m2, o1, o2, st] = meta!.slice(1).split(' ')
      at.push(`${st} ${p} ${st === 'D' ? o1 : o2} ${(st === 'D' ? m1 : m2)!.replace(/^0+/, '')}`)
    }
  }
  let changes = 0
  for (const [k, [x, y]] of pairs.entries()) {
    const want = wants.get(`${x.id} ${y.id}`)
    if (!want) {
      t.fail(`git diff-tree answered pair ${k}`)
      continue
    }
    want.sort()
    const got = (await diffTrees(store.reader, x.id!, y.id!)).map(c => `${c.status} ${c.path} ${c.blob} ${c.mode}`).sort()
    t.same(got, want, `pair ${k}`)
    changes += want.length
  }
  t.ok(changes > 100, `the pairs differ (${changes} changes)`)
})

// found reviewing the near read: git log's entries are split on \x01, so a record commit whose
// message holds one was named and skipped by every read through git log, and read as a record
// when it came as one of a few new commits (through cat-file): a view depended on the cache
t.test('a record commit whose message holds \\x01 is named and skipped alike, read as a new commit or from git log', async t => {
  const {store, tip} = await laneRepo(t, 20)
  const repo = path.dirname(store.commonDir)
  t.equal((await store.ledger()).size, 20, 'read once: the cache holds the lane at its 20th commit')
  const [evil] = await store.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  const raw = execFileSync('git', ['-C', repo, 'cat-file', 'commit', evil!.commit!])
  const at = raw.indexOf('\n\n') + 2
  const forged = execFileSync('git', ['-C', repo, 'hash-object', '-t', 'commit', '-w', '--stdin'], {input: Buffer.concat([raw.subarray(0, at), Buffer.from('x\x01'), raw.subarray(at)])}).toString().trim()
  execFileSync('git', ['-C', repo, 'update-ref', 'refs/research/lanes/l', forged, evil!.commit!])
  const check = (ledger: Awaited<ReturnType<typeof store.ledger>>, how: string) => {
    t.equal(ledger.size, 20, `${how}: the forged commit's record is not read`)
    t.notOk(ledger.get(evil!.id), how)
    t.ok(ledger.problems.some(p => p.code === 'commit-message' && p.message === X01), `${how}: named as git log names it`)
  }
  check(await store.ledger(), 'one new commit, through cat-file')
  await store.close()
  fs.rmSync(path.join(store.commonDir, 'exp'), {recursive: true, force: true})
  const fresh = await GitRecordStore.open(repo, {native: true})
  t.teardown(() => fresh.close())
  check(await fresh.ledger(), 'the lane in full, from git log')
  t.equal(tip.length, 40)
})
