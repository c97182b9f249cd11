import t, {type Test} from 'tap'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git, makeRepo, tempDir} from '../helpers/repo.js'
import {startGitHttpServer} from '../helpers/git-http-server.js'

// `exp init` configures fetch refspecs that map the remote's refs/research/* onto the local
// lanes (for plain `git fetch`). isomorphic-git, which exp uses for http(s) remotes, applied
// them on every fetch: a lane that had records on both sides was overwritten with the remote's
// tip (its local records gone from every view), and a fetch that failed after listing the refs
// left a lane pointing at an object that never arrived. Sync moves lanes itself, checked.

async function note(dir: string, lane: string, text: string): Promise<void> {
  const r = await exp(['append', 'note', '--lane', lane, '-'], {cwd: dir, input: JSON.stringify({text})})
  if (r.code !== 0) throw new Error(r.stderr)
}

async function texts(dir: string): Promise<string[]> {
  const r = await exp(['ledger', '--json'], {cwd: dir})
  return (JSON.parse(r.stdout) as {body: {text: string}}[]).map(x => x.body.text).sort()
}

/** Two clones that both ran `exp init`, with a smart-HTTP hub on 127.0.0.1 as origin; their branch pushed when asked. */
async function hub(t: Test, o: {pushMain: boolean; branch?: string}): Promise<{a: string; b: string; url: string}> {
  const branch = o.branch ?? 'main'
  const root = tempDir(t)
  await git(root, 'init', '-q', '--bare', '-b', branch, path.join(root, 'hub.git'))
  const server = await startGitHttpServer(root)
  t.teardown(() => server.close())
  const url = `${server.url}/hub.git`
  const a = await makeRepo(t)
  const b = await makeRepo(t)
  for (const c of [a, b]) {
    if (branch !== 'main') await git(c, 'branch', '-m', 'main', branch)
    await git(c, 'remote', 'add', 'origin', url)
    t.equal((await exp(['init'], {cwd: c})).code, 0)
  }
  t.match(await git(a, 'config', '--get-all', 'remote.origin.fetch'), /refs\/research\/\*:refs\/research\/\*/, 'exp init configured the lanes refspec')
  if (o.pushMain) await git(a, 'push', '-q', path.join(root, 'hub.git'), branch)
  return {a, b, url}
}

for (const branch of ['master', 'main']) t.test(`http sync after exp init never overwrites a lane that has records on both sides (${branch})`, async t => {
  const {a, b} = await hub(t, {pushMain: true, branch})
  await note(a, 'alice', 'one')
  t.equal((await exp(['sync'], {cwd: a})).code, 0)
  await note(b, 'alice', 'two, written in b')
  await note(a, 'alice', 'three')
  t.equal((await exp(['sync'], {cwd: a})).code, 0)
  const before = await git(b, 'rev-parse', 'refs/research/lanes/alice')

  const r = await exp(['sync', '--json'], {cwd: b})
  t.equal(r.code, 4, 'a diverged lane: exit 4')
  t.match(JSON.parse(r.stdout), {error: {code: 'E_DIVERGED', data: {transport: 'isomorphic-git', rejected: [{ref: 'refs/research/lanes/alice', kind: 'diverged'}]}}})
  t.equal(await git(b, 'rev-parse', 'refs/research/lanes/alice'), before, 'the lane is where it was')
  t.same(await texts(b), ['two, written in b'], 'and its record is still read')
  for (const c of [a, b]) t.notMatch(await git(c, 'for-each-ref', '--format=%(refname)'), /refs\/remotes\/(exp-sync|origin\/refs)/, 'no remote-tracking ref of sync\'s own, or of a lane, is left behind')

  // a lane only the remote moved is fetched as before
  await note(a, 'bob', 'four')
  t.equal((await exp(['sync'], {cwd: a})).code, 0)
  const again = await exp(['sync', '--json'], {cwd: b})
  t.match(JSON.parse(again.stdout), {error: {data: {fetched: [{ref: 'refs/research/lanes/bob'}]}}})
  t.same(await texts(b), ['four', 'two, written in b'])
})

t.test('an http remote whose HEAD names no commit: through the git binary, else a clear error and nothing changed', async t => {
  const {a, b} = await hub(t, {pushMain: false})
  await note(a, 'alice', 'one')
  await note(a, 'bob', 'from a')
  t.equal((await exp(['sync'], {cwd: a})).code, 0, 'the first push needs no fetch')
  await note(b, 'alice', 'two, written in b')
  const before = await git(b, 'rev-parse', 'refs/research/lanes/alice')
  const refs = await git(b, 'for-each-ref')

  // isomorphic-git alone cannot fetch from it
  const r = await exp(['sync'], {cwd: b, env: {EXP_NO_NATIVE_GIT: '1'}})
  t.equal(r.code, 1)
  t.match(r.stderr, /origin \(http:\/\/127\.0\.0\.1:\d+\/hub\.git\) has no HEAD: its default branch has no commit/)
  t.match(r.stderr, /hint: push a branch to it first \(git push origin main\)/)
  t.notMatch(r.stderr, /unexpected/)
  t.equal(await git(b, 'rev-parse', 'refs/research/lanes/alice'), before, 'the lane is where it was')
  t.equal(await git(b, 'for-each-ref'), refs, 'no ref was added (none naming an object that never arrived)')
  t.same(await texts(b), ['two, written in b'])

  // with the git binary (which exp needs anyway), sync goes through it
  const g = await exp(['sync', '--json'], {cwd: b})
  t.equal(g.code, 4, 'the diverged lane is reported')
  t.match(JSON.parse(g.stdout), {error: {code: 'E_DIVERGED', data: {transport: 'git', fetched: [{ref: 'refs/research/lanes/bob'}], rejected: [{ref: 'refs/research/lanes/alice', kind: 'diverged'}]}}})
  t.equal(await git(b, 'rev-parse', 'refs/research/lanes/alice'), before)
  t.same(await texts(b), ['from a', 'two, written in b'])
})
