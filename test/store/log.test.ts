import t from 'tap'
import {GitRecordStore} from '../../src/store/index.js'
import {laneCommitChunksNative, laneCommitsIso} from '../../src/store/git/log.js'
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
