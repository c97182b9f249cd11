import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
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
  const other = path.join(tempDir(t), 'other')
  await git(repo, 'worktree', 'add', '-q', '-b', 'elsewhere', other)
  const o = await exp(['attempt', 'new', 'quad', '--path', other], {cwd: repo})
  t.not(o.code, 0)
  t.match(o.stderr, /cannot make a work tree at .*other: it is already a git work tree: an attempt needs a folder of its own/)
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
})
