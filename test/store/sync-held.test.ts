import t, {type Test} from 'tap'
import path from 'node:path'
import {GitRecordStore, discoverRepo} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {sync} from '../../src/store/git/sync.js'
import {makeRepo, git, tempDir} from '../helpers/repo.js'
import {startGitHttpServer} from '../helpers/git-http-server.js'
import {sampleDraft} from '../helpers/records.js'

/**
 * Two clones that write one lane name (the default lane is user@host: two clones on one
 * machine) diverge; sync reports it. A lane whose new records cite records of the diverged
 * lane is held back too: pushed alone it would leave the remote with records citing what it
 * does not have (every third clone then read dangling cites and "forged" evaluations).
 */

async function append(dir: string, lane: string, n: number, cites: string[] = []): Promise<string> {
  const s = await GitRecordStore.open(dir)
  const r = await s.append({...sampleDraft('note', n), cites}, {lane})
  await s.close()
  return r.id
}

async function clones(t: Test, transport: 'git' | 'http') {
  const root = tempDir(t)
  const bare = path.join(root, 'hub.git')
  await git(root, 'init', '-q', '--bare', '-b', 'main', bare)
  const seed = await makeRepo(t)
  await git(seed, 'push', '-q', bare, 'main')
  let url = bare
  if (transport === 'http') {
    const server = await startGitHttpServer(root)
    t.teardown(() => server.close())
    url = `${server.url}/hub.git`
  }
  const dirs = ['a', 'b', 'c'].map(n => path.join(root, n))
  for (const c of dirs) {
    await git(root, 'clone', '-q', bare, c)
    await git(c, 'remote', 'set-url', 'origin', url)
  }
  return {bare, dirs}
}

for (const transport of ['git', 'http'] as const) {
  t.test(`sync (${transport}) holds back lanes whose records cite records of a diverged lane, and sends them once it is pushed`, async t => {
    const {bare, dirs} = await clones(t, transport)
    const [a, b, c] = dirs as [string, string, string]
    await append(a, 'me@host', 1)
    t.same((await sync(discoverRepo(a))).rejected, [])
    // the second clone writes the same lane name, then lanes that build on it
    const mine = await append(b, 'me@host', 2)
    const eval1 = await append(b, 'runs', 3, [mine])
    const eval2 = await append(b, 'reports', 4, [eval1]) // cites it through another lane
    await append(b, 'free', 5) // cites nothing of it
    const res = await sync(discoverRepo(b))
    const by = (kind: string) => res.rejected.filter(x => x.kind === kind).map(x => x.ref).sort()
    t.same(by('diverged'), ['refs/research/lanes/me@host'])
    t.same(by('held'), ['refs/research/lanes/reports', 'refs/research/lanes/runs'])
    t.match(res.rejected.find(x => x.ref === 'refs/research/lanes/runs')?.reason, `its record ${eval1} cites ${mine} of refs/research/lanes/me@host, which is not on the remote`)
    t.match(res.rejected.find(x => x.ref === 'refs/research/lanes/reports')?.reason, `cites ${eval1} of refs/research/lanes/runs`)
    t.same(res.pushed.map(p => p.ref), ['refs/research/lanes/free'], 'the lane that cites nothing of it is pushed')
    const onRemote = (await git(bare, 'for-each-ref', '--format=%(refname)', 'refs/research/lanes/')).trim().split('\n').sort()
    t.same(onRemote, ['refs/research/lanes/free', 'refs/research/lanes/me@host'])

    // a third clone reads the remote without a dangling cite
    await sync(discoverRepo(c))
    const store = await GitRecordStore.open(c)
    const report = await fsck(store)
    await store.close()
    t.same(report.problems.map(p => p.code), [], 'the remote holds nothing that cites what it lacks')

    // the writers sort the lane out (here: the remote's copy is dropped): everything goes
    await git(bare, 'update-ref', '-d', 'refs/research/lanes/me@host')
    const again = await sync(discoverRepo(b))
    t.same(again.rejected, [])
    t.same(again.pushed.map(p => p.ref).sort(), ['refs/research/lanes/me@host', 'refs/research/lanes/reports', 'refs/research/lanes/runs'])
    t.ok(eval2)
  })
}
