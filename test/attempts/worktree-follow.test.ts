import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson, ROOT} from '../helpers/cli.js'
import {git} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'

/**
 * A promotion moves the checked-out main branch and brings the work tree along, as `git
 * merge` does. A tracked file whose times changed (touched, or the repository copied) is not
 * a change; one whose content changed is never overwritten, and main does not move then.
 */
const AGENT = `command:python3 ${path.join(ROOT, 'test/fixtures/agents/memory-researcher.py')}`
type Research = {attempts: {id: string; state: string}[]}

t.test('a touched file (content unchanged) does not stop the work tree from following a promotion', async t => {
  const repo = await quadFixture(t)
  const old = new Date('2001-01-01T00:00:00Z')
  fs.utimesSync(path.join(repo, 'params.json'), old, old)
  const r = await exp(['research', 'quad', '--agent', AGENT, '--attempts', '1', '--lane', 'a', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.same((JSON.parse(r.stdout) as Research).attempts.map(a => a.state), ['accepted'])
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'the work tree is the promotion')
  t.equal(fs.readFileSync(path.join(repo, 'params.json'), 'utf8'), await git(repo, 'show', 'HEAD:params.json'))
  const decisions = await expJson<{body: {verdict: string; merge?: {commit: string}}}[]>(['ledger', '--kind', 'decision'], {cwd: repo})
  t.equal(decisions[0]?.body.merge?.commit, (await git(repo, 'rev-parse', 'HEAD')).trim(), 'the decision names the merge main is at')
})

t.test('a changed file the promotion would overwrite: main stays, the change stays, nothing is half done', async t => {
  const repo = await quadFixture(t)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 3, "y": 3}\n')
  const r = await exp(['research', 'quad', '--agent', AGENT, '--attempts', '1', '--lane', 'a'], {cwd: repo})
  t.equal(r.code, 4, r.stderr)
  t.match(r.stderr, /main is checked out and the promotion would overwrite uncommitted changes: .*params\.json/)
  t.match(r.stderr, /hint: commit or stash them, then promote again/)
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'main did not move')
  t.equal(fs.readFileSync(path.join(repo, 'params.json'), 'utf8'), '{"x": 3, "y": 3}\n', 'the change is kept')
  t.same(await expJson(['ledger', '--kind', 'decision'], {cwd: repo}), [], 'no decision recorded for a merge that did not happen')
  // put aside, the same attempt is promoted
  await git(repo, 'stash', '-q')
  const list = await expJson<{id: string}[]>(['attempt', 'list'], {cwd: repo})
  // (on its own lane: another lane's measurements of it would count for nothing, docs/trust.md)
  const again = await exp(['attempt', 'promote', list[0]!.id, '--lane', 'a'], {cwd: repo})
  t.equal(again.code, 0, again.stderr)
  t.not((await git(repo, 'rev-parse', 'main')).trim(), main, 'promoted')
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '')
})

t.test('a promotion made from another work tree (git worktree add) brings along the work tree that has main checked out', async t => {
  const repo = await quadFixture(t)
  const side = path.join(path.dirname(repo), `${path.basename(repo)}-side`)
  await git(repo, 'worktree', 'add', '-q', side, '-b', 'side')
  t.teardown(() => fs.rmSync(side, {recursive: true, force: true}))
  const r = await exp(['research', 'quad', '--agent', AGENT, '--attempts', '1', '--lane', 'a', '--json'], {cwd: side})
  t.equal(r.code, 0, r.stderr)
  t.same((JSON.parse(r.stdout) as Research).attempts.map(a => a.state), ['accepted'])
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'the main checkout is the promotion, not the promotion undone')
  t.equal(fs.readFileSync(path.join(repo, 'params.json'), 'utf8'), await git(repo, 'show', 'main:params.json'))
  t.equal((await git(side, 'status', '--porcelain')).trim(), '', 'the side work tree is untouched')
  // from a fresh start, a change in the main checkout stops a promotion made from the side, before main moves
  const repo2 = await quadFixture(t)
  const side2 = path.join(path.dirname(repo2), `${path.basename(repo2)}-side`)
  await git(repo2, 'worktree', 'add', '-q', side2, '-b', 'side')
  t.teardown(() => fs.rmSync(side2, {recursive: true, force: true}))
  const main = (await git(repo2, 'rev-parse', 'main')).trim()
  fs.writeFileSync(path.join(repo2, 'params.json'), '{"x": 3, "y": 3}\n')
  const d = await exp(['research', 'quad', '--agent', AGENT, '--attempts', '1', '--lane', 'a'], {cwd: side2})
  t.equal(d.code, 4, d.stderr)
  t.match(d.stderr, /checked out at .* and the promotion would overwrite uncommitted changes: .*params\.json/)
  t.equal((await git(repo2, 'rev-parse', 'main')).trim(), main, 'main did not move')
  t.equal(fs.readFileSync(path.join(repo2, 'params.json'), 'utf8'), '{"x": 3, "y": 3}\n', 'the change is kept')
})

// Found by the two-lane research test: lane b's promotion checked main's work tree against the
// main it started from, after lane a's promotion had moved main and the work tree along; it
// stopped with "would overwrite uncommitted changes" (exit 4) instead of deciding again.
t.test('main moved (with its work tree) by another promotion meanwhile: a conflict to decide again on, not a dirty tree', async t => {
  const {GitRecordStore} = await import('../../src/store/index.js')
  const {GitWorkspace} = await import('../../src/workspace/git.js')
  const {advanceBranch} = await import('../../src/workspace/advance.js')
  const repo = await quadFixture(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  const m0 = (await git(repo, 'rev-parse', 'main')).trim()
  const a = await ws.commitFiles({base: m0, files: [{path: 'params.json', content: Buffer.from('{"x": 4, "y": 1}\n')}], message: 'a'})
  const b = await ws.commitFiles({base: m0, files: [{path: 'params.json', content: Buffer.from('{"x": 1, "y": 2}\n')}], message: 'b'})
  t.equal(await advanceBranch(ws, 'refs/heads/main', m0, a), undefined, "lane a's promotion: main and its work tree move")
  t.equal(fs.readFileSync(path.join(repo, 'params.json'), 'utf8'), '{"x": 4, "y": 1}\n')
  await t.rejects(advanceBranch(ws, 'refs/heads/main', m0, b), {code: 'E_CONFLICT', message: /refs\/heads\/main moved to [0-9a-f]{12} while exp was working/}, "lane b's, from the main it started on")
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), a)
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'the work tree is untouched')
})
