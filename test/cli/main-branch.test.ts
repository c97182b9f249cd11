import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {git, tempDir} from '../helpers/repo.js'
import {exampleRepo} from '../helpers/evolve.js'
import {expBatch} from '../helpers/cli-batch.js'

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

// Found by an attack sweep: main_branch was taken as a full ref when it started with refs/, so
// a committed `main_branch: refs/tags/v1.0` (a clone or a pull request sets that file) had `exp
// evolve` promote by moving the release tag, and `refs/research/lanes/x` landed promotion
// merges on a lane. main_branch names a branch, by git's rules for one, and nothing else.
for (const branch of ['master', 'main']) {
  t.test(`on ${branch}: a main_branch that is no branch name is refused by file and field; nothing moves`, async t => {
    const repo = await exampleRepo(t)
    if (branch === 'master') await git(repo, 'branch', '-m', 'main', 'master')
    await git(repo, 'tag', 'v1.0')
    const text = fs.readFileSync(path.join(repo, '.research/config.yaml'), 'utf8')
    t.match(text, /^main_branch: "main"$/m)
    const cases: [string, RegExp, RegExp?][] = [
      ['refs/tags/v1.0', /it is a full ref name/],
      ['refs/research/lanes/foo', /it is a full ref name/],
      [`refs/heads/${branch}`, /it is a full ref name/, new RegExp(`^hint: write the branch's name: main_branch: ${branch}$`, 'm')],
      ['HEAD', /HEAD is not a branch/],
      ['-x', /starts with '-'/],
      ['a..b', /'\.\.'/],
      ['a b', /a space/],
      ['x.lock', /\.lock/],
      ['a//b', /empty component/],
      ['', /it is empty/],
    ]
    // a copy of the repository per value, its config committed there; the commands of all of
    // them in one process (test/helpers/cli-batch.ts)
    const copies = await Promise.all(cases.map(async ([value]) => {
      const dir = tempDir(t)
      fs.cpSync(repo, dir, {recursive: true})
      fs.writeFileSync(path.join(dir, '.research/config.yaml'), text.replace(/^main_branch: "main"$/m, `main_branch: ${JSON.stringify(value)}`))
      await git(dir, 'commit', '-qam', `main_branch ${value}`)
      return {dir, refs: await git(dir, 'for-each-ref')}
    }))
    const commands = [['evolve', '-n', '1', '--lane', 't'], ['promote', 'pr-0123456789abcdef01234567', '--lane', 't'], ['report'], ['fsck']]
    const runs = cases.flatMap((c, i) => commands.map(args => ({c, copy: copies[i]!, args})))
    const results = await expBatch(runs.map(r => ({args: r.args, cwd: r.copy.dir, env: {EXP_LANE: ''}})))
    runs.forEach(({c: [value, why, hint], args}, i) => {
      const r = results[i]!
      const name = `main_branch ${JSON.stringify(value)}: exp ${args[0]}`
      t.equal(r.code, 2, `${name}: ${r.stderr}`)
      t.match(r.stderr, new RegExp(`^error: \\.research/config\\.yaml: main_branch ${JSON.stringify(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a branch name: `, 'm'), name)
      t.match(r.stderr, why, name)
      t.match(r.stderr, hint ?? /^hint: set main_branch in \.research\/config\.yaml to the branch promotions merge into, by its name/m, name)
      t.notMatch(r.stderr, /this is unexpected|report it/, name)
    })
    for (const [i, {dir, refs}] of copies.entries()) {
      t.equal(await git(dir, 'for-each-ref'), refs, `main_branch ${JSON.stringify(cases[i]![0])}: no ref moved, the tag v1.0 least of all`)
      t.notOk(fs.existsSync(path.join(dir, 'results')), 'no report was written')
    }
    // a branch name with a slash is a branch like any other
    await git(repo, 'branch', 'team/trunk', branch)
    fs.writeFileSync(path.join(repo, '.research/config.yaml'), text.replace(/^main_branch: "main"$/m, 'main_branch: team/trunk'))
    const ok = await exp(['provenance', 'onboarding'], {cwd: repo})
    t.equal(ok.code, 0, ok.stderr)
    t.match(ok.stdout, /onboarding v1/)
  })
}

t.test('--main of a view: a branch name or a full ref to read; anything else is refused naming --main', async t => {
  const repo = await exampleRepo(t)
  await git(repo, 'tag', 'v1.0')
  // a view reads any history it is pointed at (exp ablate --main refs/exp/matrix/…/main)
  for (const main of ['main', 'refs/heads/main', 'refs/tags/v1.0']) {
    const r = await exp(['provenance', 'onboarding', '--main', main], {cwd: repo})
    t.equal(r.code, 0, `--main ${main}: ${r.stderr}`)
    t.match(r.stdout, /onboarding v1/)
  }
  const refs = await git(repo, 'for-each-ref')
  const bad = [['', /--main is empty/], [' ', /--main is empty/], ['a..b', /--main "a\.\.b" is not a branch name: it holds '\.\.'/], ['refs/heads/a..b', /--main "refs\/heads\/a\.\.b" is not a ref name: it holds '\.\.'/], ['HEAD', /--main "HEAD" is not a branch name/], ['-x', /--main "-x" is not a branch name/]] as const
  const runs = bad.flatMap(([main, error]) => [['provenance', 'onboarding'], ['blame', 'onboarding'], ['fsck'], ['report']].map(args => ({args: [...args, '--main', main], error})))
  const results = await expBatch(runs.map(r => ({args: r.args, cwd: repo})))
  runs.forEach(({args, error}, i) => {
    const r = results[i]!
    t.equal(r.code, 2, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, error)
    t.match(r.stderr, /^hint: \S/m)
    t.notMatch(r.stderr, /this is unexpected|report it/)
  })
  t.equal(await git(repo, 'for-each-ref'), refs)
  t.notOk(fs.existsSync(path.join(repo, 'results')), 'no report was written')
})

t.test('exp init --main takes a branch name only: what it writes is main_branch', async t => {
  for (const main of ['refs/tags/v1', 'refs/heads/main', 'HEAD', 'a..b', '']) {
    const repo = tempDir(t)
    await git(repo, 'init', '-q', '-b', 'main')
    const r = await exp(['init', '--main', main], {cwd: repo})
    t.equal(r.code, 2, `--main ${JSON.stringify(main)}: ${r.stderr}`)
    t.match(r.stderr, /^error: --main (is empty|".*" is not a branch name)/m)
    t.match(r.stderr, /^hint: \S/m)
    t.notOk(fs.existsSync(path.join(repo, '.research')), 'nothing was written')
  }
})
