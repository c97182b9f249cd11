import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {git, tempDir} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'

// Found trying `exp attempt new --path` as a new user would: `--path .` printed "edit
// params.json in <the repository>" (the repository's own checkout taken for the attempt's; its
// eval then failed on a branch that was never made), and a folder inside the work tree became
// a nested checkout that main's `git status` shows and every promotion refuses.
t.test('exp attempt new --path: never the repository, a folder inside it, or another work tree; nothing recorded', async t => {
  const repo = await quadFixture(t)
  const count = async () => (await exp(['ledger', '--kind', 'attempt', '--json'], {cwd: repo})).stdout.split('\n').filter(l => l.includes('"kind":"attempt"')).length
  const before = await count()
  for (const p of ['.', 'sub', path.join(repo, 'data')]) {
    const r = await exp(['attempt', 'new', 'quad', '--path', p], {cwd: repo})
    t.equal(r.code, 2, `--path ${p}: ${r.stderr}`)
    t.match(r.stderr, /is inside the repository's work tree .*: an attempt's work tree goes beside it, not in it/)
  }
  // (found by a sweep: a folder in .git became refs — every file of the checkout a broken ref)
  for (const p of ['.git/refs/research/lanes/zz', '.git/objects/zz', path.join(repo, '.git', 'exp', 'x')]) {
    const r = await exp(['attempt', 'new', 'quad', '--path', p], {cwd: repo})
    t.equal(r.code, 2, `--path ${p}: ${r.stderr}`)
    t.match(r.stderr, /is inside a git directory .*: git would read the attempt's files as its own/)
  }
  t.notOk(fs.existsSync(path.join(repo, '.git/refs/research/lanes/zz')))
  const other = path.join(tempDir(t), 'other')
  await git(repo, 'worktree', 'add', '-q', '-b', 'elsewhere', other)
  const o = await exp(['attempt', 'new', 'quad', '--path', other], {cwd: repo})
  t.not(o.code, 0)
  t.match(o.stderr, /cannot make a work tree at .*other: it is already a git work tree: an attempt needs a folder of its own/)
  // (found by red-teaming: through a link the folder landed inside the repository; a folder
  // that is there and not empty failed at git worktree add, after the attempt was recorded)
  const links = tempDir(t)
  fs.symlinkSync(repo, path.join(links, 'repo-link'))
  const viaLink = await exp(['attempt', 'new', 'quad', '--path', path.join(links, 'repo-link', 'sub')], {cwd: repo})
  t.equal(viaLink.code, 2, viaLink.stderr)
  t.match(viaLink.stderr, /is inside the repository's work tree/)
  const full = path.join(tempDir(t), 'full')
  fs.mkdirSync(full)
  fs.writeFileSync(path.join(full, 'notes.txt'), 'mine\n')
  const taken = await exp(['attempt', 'new', 'quad', '--path', full], {cwd: repo})
  t.equal(taken.code, 2, taken.stderr)
  t.match(taken.stderr, /is a folder that is not empty: an attempt's work tree is made in a new or empty folder/)
  t.equal(await count(), before, 'no attempt was recorded')
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', "main's checkout is untouched")
  // beside the repository: made, and taken up again by the same command
  const side = path.join(tempDir(t), 'side')
  const made = await exp(['attempt', 'new', 'quad', '--path', side, '--json'], {cwd: repo})
  t.equal(made.code, 0, made.stderr)
  const id = JSON.parse(made.stdout).id as string
  const again = await exp(['attempt', 'new', 'quad', '--path', side, '--ordinal', String(JSON.parse(made.stdout).ordinal), '--json'], {cwd: repo})
  t.equal(again.code, 0, again.stderr)
  t.equal(JSON.parse(again.stdout).id, id, 'the same attempt, its own work tree')
  // what is edited there is what is evaluated (eval committed only the default folder's edits)
  fs.writeFileSync(path.join(side, 'params.json'), '{"x": 4, "y": 2}\n')
  const ev = await exp(['attempt', 'eval', id, '--json'], {cwd: repo})
  t.equal(ev.code, 0, ev.stderr)
  t.equal(await git(repo, 'show', `exp/attempt/${id}:params.json`), '{"x": 4, "y": 2}\n', 'the edit is committed on the attempt branch')
  t.equal((await git(side, 'status', '--porcelain')).trim(), '')
})

// Found reading `git worktree list` after a research run: every decided attempt left its work
// tree behind under .git/exp/worktrees (a rejected one on a branch that no longer exists),
// one full checkout per attempt.
t.test('exp attempt new --hypothesis of an id that is not a hypothesis: refused, nothing recorded (a record is never rewritten)', async t => {
  const repo = await quadFixture(t)
  const note = await exp(['append', 'note', '-'], {cwd: repo, input: '{"text":"not a hypothesis"}'})
  for (const id of ['hy-000000000000000000000000', note.stdout.trim()]) {
    const r = await exp(['attempt', 'new', 'quad', '--hypothesis', id], {cwd: repo})
    t.equal(r.code, 3, r.stderr)
    t.match(r.stderr, new RegExp(`unknown hypothesis: ${id}`))
  }
  t.equal((await exp(['ledger', '--kind', 'attempt', '--json'], {cwd: repo})).stdout.trim(), '[]', 'no attempt recorded')
  t.equal((await git(repo, 'branch', '--list', 'exp/attempt/*')).trim(), '', 'no branch made')
})

t.test("an attempt id another lane took first under this lane's key is not this lane's attempt: the next ordinal is used, an --ordinal naming it is refused", async t => {
  const repo = await quadFixture(t)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  // lane mallory writes a record under alice's next attempt key, on another base
  const real = await expJson<{id: string}>(['attempt', 'new', 'quad', '--lane', 'scout'], {cwd: repo})
  const body = (await expJson<{record: {body: Record<string, unknown>}}>(['inspect', real.id, '--json'], {cwd: repo})).record.body
  const {attemptId, attemptKey, attemptBranch} = await import('../../src/attempts/keys.js')
  const squatted = attemptId(attemptKey('quad', 'alice', 1))
  const planted = await exp(['append', 'attempt', '-', '--lane', 'mallory', '--key', attemptKey('quad', 'alice', 1)], {cwd: repo, input: JSON.stringify({...body, branch: attemptBranch(squatted), base: {commit: main, branch: 'elsewhere'}, reason: 'planted'})})
  t.equal(planted.stdout.trim(), squatted, planted.stderr)
  const a = await expJson<{id: string; ordinal: number}>(['attempt', 'new', 'quad', '--lane', 'alice'], {cwd: repo})
  t.equal(a.ordinal, 2, 'the next ordinal')
  t.not(a.id, squatted)
  const refused = await exp(['attempt', 'new', 'quad', '--lane', 'alice', '--ordinal', '1'], {cwd: repo})
  t.equal(refused.code, 4, refused.stderr)
  t.match(refused.stderr, /lane mallory holds that id with a record of its own: it is not this lane's attempt/)
})

t.test("a decided attempt's own work tree goes once everything in it is committed", async t => {
  const repo = await quadFixture(t)
  const open = async () => JSON.parse((await exp(['attempt', 'new', 'quad', '--json'], {cwd: repo})).stdout) as {id: string; path: string}
  const a = await open()
  fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": 4, "y": 2}\n')
  t.equal((await exp(['attempt', 'eval', a.id], {cwd: repo})).code, 0)
  const pa = await exp(['attempt', 'promote', a.id], {cwd: repo})
  t.ok([0, 1].includes(pa.code), pa.stderr)
  t.notOk(fs.existsSync(a.path), 'decided and clean: removed')
  t.notMatch(await git(repo, 'worktree', 'list'), new RegExp(a.id))
  const b = await open()
  fs.writeFileSync(path.join(b.path, 'params.json'), '{"x": 3, "y": 2}\n')
  t.equal((await exp(['attempt', 'eval', b.id], {cwd: repo})).code, 0)
  fs.writeFileSync(path.join(b.path, 'notes.txt'), 'mine\n')
  // promote evaluates again, committing what changed since: the note is judged (outside the scope) and kept on the rejected ref
  const pb = await exp(['attempt', 'promote', b.id, '--json'], {cwd: repo})
  t.match(JSON.parse(pb.stdout), {verdict: 'reject', rejected_ref: `refs/research/rejected/${b.id}`})
  t.equal(await git(repo, 'show', `refs/research/rejected/${b.id}:notes.txt`), 'mine\n', 'nothing of it is lost')
  t.notOk(fs.existsSync(b.path))
  // run from inside its own work tree, the attempt keeps it (the shell stands there)
  const c = await open()
  fs.writeFileSync(path.join(c.path, 'params.json'), '{"x": 2, "y": 2}\n')
  const pc = await exp(['attempt', 'promote', c.id, '--json'], {cwd: c.path})
  t.ok(fs.existsSync(c.path), 'kept while exp runs in it')
  // and so is its branch: deleted under it, the work tree was left on a branch that does not exist
  t.equal((await git(c.path, 'rev-parse', '--verify', 'HEAD')).trim(), (await git(repo, 'rev-parse', `refs/research/rejected/${c.id}`)).trim(), `the kept work tree is on its branch (${pc.stdout})`)
})

// Found by the random-kill test of exp research: killed after a reject moved the attempt's
// branch to its rejected ref and before the decision was recorded, the attempt could not be
// decided again ("unknown attempt branch"), and every later run of the lane failed on it.
t.test('a reject cut short after its branch moved to the rejected ref is decided again from that ref', async t => {
  const repo = await quadFixture(t)
  const a = JSON.parse((await exp(['attempt', 'new', 'quad', '--json'], {cwd: repo})).stdout) as {id: string; path: string; branch: string}
  fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": 1, "y": 9}\n')
  t.equal((await exp(['attempt', 'eval', a.id], {cwd: repo})).code, 0)
  const tip = (await git(repo, 'rev-parse', a.branch)).trim()
  // what promote does for a reject, up to the kill
  await git(repo, 'update-ref', `refs/research/rejected/${a.id}`, tip)
  await git(repo, 'update-ref', '-d', `refs/heads/${a.branch}`)
  const r = await exp(['attempt', 'promote', a.id, '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.match(JSON.parse(r.stdout), {verdict: 'reject', rejected_ref: `refs/research/rejected/${a.id}`})
  t.equal((await git(repo, 'rev-parse', `refs/research/rejected/${a.id}`)).trim(), tip, 'what was judged stays where it was')
})
