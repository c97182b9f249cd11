import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git, makeRepo} from '../helpers/repo.js'
import {builtinCounts} from '../helpers/scenarios.js'

const COUNT = await builtinCounts()

// Problem 4 of issue 13: a failed init left a partial .research/config.yaml behind.
t.test('an exp init --example that fails part way leaves nothing behind, and runs again once fixed', async t => {
  const repo = await makeRepo(t)
  // a file where init needs a folder: copying the example works, making knowledge/ fails
  fs.writeFileSync(path.join(repo, 'knowledge'), 'in the way\n')
  const before = (await git(repo, 'status', '--porcelain')).trim()
  const r = await exp(['init', '--example', 'onboarding'], {cwd: repo})
  t.not(r.code, 0)
  t.match(r.stderr, /^error: a file is in the way: knowledge/m)
  t.notMatch(r.stderr, /unexpected/)
  for (const p of ['.research', 'scenarios', 'skills', 'experience']) t.notOk(fs.existsSync(path.join(repo, p)), `${p} was removed again`)
  t.equal(fs.readFileSync(path.join(repo, 'knowledge'), 'utf8'), 'in the way\n', 'what was there before is untouched')
  t.equal((await git(repo, 'status', '--porcelain')).trim(), before, 'work tree and index as before')
  t.equal((await git(repo, 'rev-list', '--count', 'HEAD')).trim(), '1', 'no commit')

  fs.rmSync(path.join(repo, 'knowledge'))
  const ok = await exp(['init', '--example', 'onboarding'], {cwd: repo})
  t.equal(ok.code, 0, ok.stderr)
  t.equal((JSON.parse((await exp(['scenarios', 'list', '--json'], {cwd: repo})).stdout) as {scenarios: unknown[]}).scenarios.length, COUNT.all, `all ${COUNT.all} scenarios (held-out sealed)`)
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'the example is committed')
})

t.test('an existing .research/ is kept when a later step fails', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  const config = fs.readFileSync(path.join(repo, '.research/config.yaml'), 'utf8')
  fs.writeFileSync(path.join(repo, 'experience'), 'x\n')
  t.not((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  t.equal(fs.readFileSync(path.join(repo, '.research/config.yaml'), 'utf8'), config, 'the earlier init stays')
  t.notOk(fs.existsSync(path.join(repo, 'scenarios')))
})

// Found attacking as a repository's author: `.research` or `skills` committed as a link took
// exp init's files out of the work tree (into the folder the link names).
t.test('exp init, exp seal and exp ci init refuse to write through a folder of the work tree that is a symbolic link', async t => {
  for (const [name, args] of [['.research', ['init']], ['skills', ['init', '--example', 'onboarding']], ['scenarios', ['init', '--example', 'onboarding']], ['scenarios', ['seal']], ['.research', ['seal', '--contract', 'quad']], ['.github', ['ci', 'init']]] as const) {
    const repo = await makeRepo(t)
    const outside = fs.mkdtempSync(path.join(path.dirname(repo), 'outside-'))
    t.teardown(() => fs.rmSync(outside, {recursive: true, force: true}))
    fs.symlinkSync(outside, path.join(repo, name))
    await git(repo, 'add', name)
    await git(repo, 'commit', '-qm', `${name} is a link`)
    const r = await exp([...args], {cwd: repo})
    t.equal(r.code, 2, `${name}: ${r.stderr}`)
    t.match(r.stderr, new RegExp(`^error: ${name.replace('.', '\\.')} is a symbolic link \\(to ${outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\), and exp writes only into real folders of the work tree`, 'm'))
    t.match(r.stderr, new RegExp(`^hint: remove the link \\(\`git rm ${name.replace('.', '\\.')}\` if it is committed\\)`, 'm'))
    t.same(fs.readdirSync(outside), [], `${name}: nothing written where the link points`)
    t.equal((await git(repo, 'status', '--porcelain')).trim(), '', `${name}: nothing left in the work tree`)
    t.notOk(fs.existsSync(path.join(repo, '.git', 'exp', 'holdout.key')), `${name}: no key made`)
  }
})
