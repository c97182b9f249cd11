import t from 'tap'
import {GitRecordStore} from '../../src/store/index.js'
import {laneCommitChunksNative, laneCommitsIso, laneCommitsNative, nearLaneCommits} from '../../src/store/git/log.js'
import {makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'

async function laneRepo(t: Parameters<typeof makeRepo>[0], n: number): Promise<{store: GitRecordStore; tip: string}> {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  t.teardown(() => store.close())
  const res = await store.appendBatch(Array.from({length: n}, (_, i) => sampleDraft('note', i)), {lane: 'l'})
  return {store, tip: res.at(-1)!.commit!}
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
  const {store, tip} = await laneRepo(t, 30)
  const all = await laneCommitsNative(store.commonDir, tip)
  const stop = all[26]!.oid
  const near = await nearLaneCommits(store.reader, tip, stop, 16)
  t.same(near, await laneCommitsNative(store.commonDir, tip, stop), 'oids, parents, messages and changes as git log --raw gives them')
  t.equal(near!.length, 3)
  t.same(await nearLaneCommits(store.reader, tip, tip, 16), [], 'nothing new')
  t.equal(await nearLaneCommits(store.reader, tip, all[5]!.oid, 16), undefined, 'further back than asked')
  t.equal((await nearLaneCommits(store.reader, tip, all[5]!.oid, 30))!.length, 24)
  const other = await store.appendBatch([sampleDraft('note', 99)], {lane: 'other'})
  t.equal(await nearLaneCommits(store.reader, tip, other[0]!.commit!, 64), undefined, 'not an ancestor (a rewritten lane)')
  t.equal(await nearLaneCommits(store.reader, 'f'.repeat(40), stop, 16), undefined, 'a tip that is not there')
  const blob = (await store.reader.read(all[29]!.changes[0]!.blob, 1 << 20)).type
  t.equal(blob, 'blob')
  t.equal(await nearLaneCommits(store.reader, all[29]!.changes[0]!.blob, stop, 16), undefined, 'a tip that is a blob')
})
