import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {git, tempDir} from '../helpers/repo.js'

// Problem 1 of issue 13, as a new user meets it: stock git 2.39 names its first branch master.
// The whole loop on master, the history views naming master and following `git branch -m
// master trunk`: test/cli/readme.test.ts, after the README's tour (a new user's loop on stock
// git's master). Here: the configurations a master repository can have.
t.test('a configuration naming a branch this repository never had (older inits wrote main) still works, with a note', async t => {
  const repo = tempDir(t)
  await git(repo, '-c', 'init.defaultBranch=master', 'init', '-q')
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  // (--example commits onto the main branch it records, so the old configuration is made by hand)
  const config = path.join(repo, '.research/config.yaml')
  fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace(/^main_branch: "master"$/m, 'main_branch: "main"'))
  await git(repo, 'commit', '-qam', 'an older init wrote main')
  t.match(fs.readFileSync(config, 'utf8'), /^main_branch: "main"$/m)
  const r = await exp(['provenance', 'onboarding'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.match(r.stderr, /note: main_branch main \(\.research\/config\.yaml\) is not a branch here; using master/)
  t.match(r.stdout, /onboarding v1/)
})

t.test('exp init on a main repository records main; --main records any name', async t => {
  const repo = tempDir(t)
  await git(repo, 'init', '-q', '-b', 'main')
  const r = await expJson<{main_branch: string}>(['init'], {cwd: repo})
  t.equal(r.main_branch, 'main')
  const other = tempDir(t)
  await git(other, 'init', '-q', '-b', 'develop')
  t.equal((await expJson<{main_branch: string}>(['init'], {cwd: other})).main_branch, 'develop')
})

// Found by a sweep: the checked-out .research/config.yaml names the branch whose policy and
// allowed signers judge. A pull request's checkout that named itself (`main_branch: pr`, with
// its own key added to allowed_signers) had `exp fsck` there take that key as trusted and
// report nothing, saying nothing of which branch ruled. The gate refuses such a base; a view
// says whose policy it read.
t.test("a checkout whose config names another main branch than origin's: every trust view says whose policy it read", async t => {
  const root = tempDir(t)
  const origin = path.join(root, 'origin')
  await git(root, '-c', 'init.defaultBranch=main', 'init', '-q', origin)
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: origin})).code, 0)
  const clone = path.join(root, 'clone')
  await git(root, 'clone', '-q', origin, clone)
  const quiet = await exp(['fsck'], {cwd: clone})
  t.notMatch(quiet.stderr, /not origin's default branch/, 'on main: nothing to say')
  await git(clone, 'switch', '-q', '-c', 'pr')
  const config = path.join(clone, '.research/config.yaml')
  fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace(/^main_branch: "main"$/m, 'main_branch: "pr"'))
  await git(clone, 'commit', '-qam', 'judge me by my own policy')
  for (const args of [['fsck'], ['hypotheses'], ['provenance', 'onboarding']]) {
    const r = await exp(args, {cwd: clone})
    const notes = r.stderr.match(/note: main_branch pr \(the checked-out \.research\/config\.yaml\) is not origin's default branch main/g) ?? []
    t.equal(notes.length, 1, `${args[0]}: said once: ${r.stderr}`)
  }
})
