import t, {type Test} from 'tap'
import path from 'node:path'
import {GitRecordStore, discoverRepo} from '../../src/store/index.js'
import {sync} from '../../src/store/git/sync.js'
import {makeRepo, git, tempDir} from '../helpers/repo.js'
import {startGitHttpServer} from '../helpers/git-http-server.js'
import {sampleDraft} from '../helpers/records.js'

async function twoClones(t: Test, url: (bare: string) => Promise<string>) {
  const root = tempDir(t)
  const bare = path.join(root, 'hub.git')
  await git(root, 'init', '-q', '--bare', '-b', 'main', bare)
  const seed = await makeRepo(t)
  await git(seed, 'push', '-q', bare, 'main')
  const u = await url(bare)
  const a = path.join(root, 'a')
  const b = path.join(root, 'b')
  for (const c of [a, b]) {
    await git(root, 'clone', '-q', bare, c)
    await git(c, 'remote', 'set-url', 'origin', u)
  }
  return {a, b}
}

async function records(dir: string): Promise<string[]> {
  const s = await GitRecordStore.open(dir)
  const ids = (await s.ledger()).entries.map(e => `${e.lane}:${e.id}`)
  await s.close()
  return ids
}

async function appendTo(dir: string, lane: string, n: number, isPrivate = false): Promise<string> {
  const s = await GitRecordStore.open(dir)
  const r = await s.append(sampleDraft('note', n), {lane, private: isPrivate})
  await s.close()
  return r.id
}

for (const [name, url] of [
  ['a path remote (git binary)', async (bare: string) => bare],
  ['a smart-HTTP remote on 127.0.0.1 (isomorphic-git)', async (bare: string) => `${SERVER!.url}/${path.basename(bare)}`],
] as const) {
  t.test(`sync through ${name} carries both lanes to both sides, never private ones`, async t => {
    const {a, b} = await twoClones(t, async bare => {
      if (name.includes('HTTP')) SERVER = await startGitHttpServer(path.dirname(bare))
      return url(bare)
    })
    t.teardown(async () => SERVER?.close())
    const ida = await appendTo(a, 'alice', 1)
    const secret = await appendTo(a, 'alice', 2, true)
    const idb = await appendTo(b, 'bob', 3)
    const ra = await sync(discoverRepo(a))
    t.same(ra.pushed.map(p => p.ref), ['refs/research/lanes/alice'])
    const rb = await sync(discoverRepo(b))
    t.same(rb.fetched.map(p => p.ref), ['refs/research/lanes/alice'])
    t.same(rb.pushed.map(p => p.ref), ['refs/research/lanes/bob'])
    await sync(discoverRepo(a))
    t.same((await records(a)).sort(), [`alice:${ida}`, `alice:${secret}`, `bob:${idb}`].sort())
    t.same((await records(b)).sort(), [`alice:${ida}`, `bob:${idb}`].sort(), 'the private record stayed home')
    // a lane that diverged is reported, never overwritten
    await appendTo(b, 'alice', 4)
    await appendTo(a, 'alice', 5)
    await sync(discoverRepo(a))
    const before = await git(b, 'rev-parse', 'refs/research/lanes/alice')
    const rb2 = await sync(discoverRepo(b))
    t.ok(rb2.rejected.some(r => r.ref === 'refs/research/lanes/alice'), 'the diverged lane is rejected')
    t.equal(await git(b, 'rev-parse', 'refs/research/lanes/alice'), before, 'and left as it was')
  })
}
let SERVER: {url: string; close: () => Promise<void>} | undefined

for (const transport of ['git', 'http'] as const) {
  t.test(`sync (${transport}) carries proposal and attempt branches to the other clone, never other branches`, async t => {
    const {a, b} = await twoClones(t, async bare => {
      if (transport === 'git') return bare
      SERVER = await startGitHttpServer(path.dirname(bare))
      return `${SERVER.url}/${path.basename(bare)}`
    })
    t.teardown(async () => SERVER?.close())
    await git(a, 'branch', 'exp/attempt/tuning/at-1')
    await git(a, 'branch', 'exp/proposal/pr-1')
    await git(a, 'branch', 'scratch')
    const ra = await sync(discoverRepo(a))
    t.same(ra.pushed.map(p => p.ref).sort(), ['refs/heads/exp/attempt/tuning/at-1', 'refs/heads/exp/proposal/pr-1'])
    const rb = await sync(discoverRepo(b))
    t.same(rb.fetched.map(p => p.ref).sort(), ['refs/heads/exp/attempt/tuning/at-1', 'refs/heads/exp/proposal/pr-1'])
    t.equal(await git(b, 'rev-parse', 'refs/heads/exp/attempt/tuning/at-1'), await git(a, 'rev-parse', 'HEAD'))
    t.equal((await git(b, 'branch', '--list', 'scratch')).trim(), '', 'an ordinary branch is not carried')
  })
}

t.test('records appended by exp in one clone are fetched by plain git and listed in another', async t => {
  const root = tempDir(t)
  const src = await makeRepo(t)
  const s = await GitRecordStore.open(src)
  const res = await s.appendBatch([1, 2, 3].map(n => sampleDraft('hypothesis', n)), {lane: 'alice'})
  await s.close()
  const dst = path.join(root, 'dst')
  await git(root, 'clone', '-q', src, dst)
  await git(dst, 'fetch', '-q', 'origin', 'refs/research/*:refs/research/*')
  t.same((await records(dst)).sort(), res.map(r => `alice:${r.id}`).sort())
  t.match(await git(dst, 'log', '-1', '--format=%B', 'refs/research/lanes/alice'), /Exp-Record: hypothesis\/hy-[0-9a-f]{24}\nExp-Schema: hypothesis@1\nExp-Lamport: 3/)
})

// Found by a sweep: with no records on either side, git push said "No refs in common and none
// specified; doing nothing" and failed, and exp sync reported "the remote end hung up
// unexpectedly: check that you may push".
t.test('the first sync of two repositories with nothing of exp\'s in them: nothing to do, not an error', async t => {
  const root = tempDir(t)
  const bare = path.join(root, 'empty.git')
  await git(root, 'init', '-q', '--bare', bare)
  const repo = await makeRepo(t)
  const res = await sync(discoverRepo(repo), bare, repo)
  t.same([res.fetched, res.pushed, res.rejected], [[], [], []])
  // and once there is a record, it goes
  await appendTo(repo, 'first', 1)
  t.same((await sync(discoverRepo(repo), bare, repo)).pushed.map(p => p.ref), ['refs/research/lanes/first'])
})
