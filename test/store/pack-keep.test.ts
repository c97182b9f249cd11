import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo, git, GIT_ENV} from '../helpers/repo.js'

/**
 * A batch is written as one pack and protected by a .keep until its lane ref moves. A
 * `git repack -a -d` that lists the packs while the batch's pack is visible without its keep
 * deletes it as redundant (nothing reaches it yet) and the lane loses its objects for good.
 * Here a real repack runs at every step of the pack's arrival (after each rename into
 * objects/pack): the keep must be there before the pack is.
 */
t.test('a git repack -a -d at any step of a batch pack\'s arrival loses nothing', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  t.teardown(() => s.close())
  await s.appendBatch(Array.from({length: 20}, (_, i) => ({kind: 'note' as const, body: {text: `first ${i}`}})), {lane: 'p'})
  const packs = path.join(repo, '.git', 'objects', 'pack')
  const seen: string[] = []
  const rename = fs.promises.rename
  fs.promises.rename = async (from: fs.PathLike, to: fs.PathLike) => {
    await rename(from, to)
    const dest = String(to)
    if (path.dirname(dest) !== packs) return
    // what git's repack sees at this moment: a .pack without a .keep is one it may delete
    seen.push(`${path.extname(dest)}${fs.readdirSync(packs).some(f => f.endsWith('.keep')) ? '+keep' : ''}`)
    execFileSync('git', ['repack', '-a', '-d', '-q'], {cwd: repo, env: GIT_ENV})
  }
  t.teardown(() => void (fs.promises.rename = rename))
  const ids: string[] = []
  for (let round = 0; round < 3; round++) {
    const res = await s.appendBatch(Array.from({length: 20}, (_, i) => ({kind: 'note' as const, body: {text: `round ${round} ${i}`}})), {lane: 'p'})
    ids.push(...res.map(r => r.id))
  }
  fs.promises.rename = rename
  t.ok(seen.length >= 9, `repack ran at ${seen.length} steps: ${seen.join(' ')}`)
  t.notOk(seen.includes('.pack') || seen.includes('.idx'), 'no pack was visible without its keep')
  const fresh = await GitRecordStore.open(repo, {cache: false})
  t.teardown(() => fresh.close())
  const ledger = await fresh.ledger()
  t.same(ids.filter(id => !ledger.has(id)), [], 'every record of every batch is read')
  t.same((await fsck(fresh)).problems, [])
  t.equal((await git(repo, 'fsck', '--strict', '--no-dangling')).trim(), '', 'git fsck is clean')
  t.same(fs.readdirSync(packs).filter(f => f.endsWith('.keep')), [], 'no keep is left once the refs moved')
})
