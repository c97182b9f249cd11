import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {git, tempDir} from '../helpers/repo.js'

// Problem 1 of issue 13, as a new user meets it: stock git 2.39 names its first branch master.
t.test('on a master repository the whole loop and the history views work, and a rename of master is followed', async t => {
  const repo = tempDir(t)
  await git(repo, '-c', 'init.defaultBranch=master', 'init', '-q')
  const run = (args: string[]) => exp(args, {cwd: repo})
  const init = await run(['init', '--example', 'onboarding'])
  t.equal(init.code, 0, init.stderr)
  t.match(init.stdout, /^main {4}master /m, 'init says which branch it recorded')
  t.match(fs.readFileSync(path.join(repo, '.research/config.yaml'), 'utf8'), /^main_branch: "master"$/m)
  t.equal((await git(repo, 'branch', '--show-current')).trim(), 'master')

  const train = await expJson<{manifest: string}>(['run', 'train', '--repeat', '2', '--lane', 't'], {cwd: repo})
  await expJson(['mine', '--manifest', train.manifest, '--lane', 't'], {cwd: repo})
  const prop = await run(['propose', 'onboarding', '--lane', 't', '--json'])
  t.equal(prop.code, 0, `propose works on master: ${prop.stderr}`)
  const id = (JSON.parse(prop.stdout) as {proposal: string}).proposal
  await expJson(['eval', id, '--lane', 't'], {cwd: repo})
  const dec = await expJson<{verdict: string; merge?: string}>(['promote', id, '--lane', 't'], {cwd: repo})
  t.equal(dec.verdict, 'accept')
  t.equal((await git(repo, 'rev-parse', 'master')).trim(), dec.merge, 'the promotion merged into master')
  t.notOk((await git(repo, 'branch', '--list', 'main')).trim(), 'no main branch was made up')

  for (const args of [['provenance', 'onboarding'], ['blame', 'onboarding'], ['report', '--out', 'site']]) {
    const r = await run(args)
    t.equal(r.code, 0, `exp ${args.join(' ')}: ${r.stderr}`)
    t.notMatch(r.stderr, /unknown branch/)
  }
  const prov = await run(['provenance', 'onboarding@2'])
  t.match(prov.stdout, new RegExp(id))
  t.match(prov.stdout, /^onboarding on master [0-9a-f]{12} is v2$/m, 'the views name the branch as it is called')
  t.match((await run(['blame', 'onboarding'])).stdout, /^skills\/onboarding\/SKILL\.md on master [0-9a-f]{12} \(onboarding v2\)$/m)
  t.equal((await expJson<{main: {branch: string}}>(['provenance', 'onboarding', '--json'], {cwd: repo})).main.branch, 'master')

  await git(repo, 'branch', '-m', 'master', 'trunk')
  const blame = await run(['blame', 'onboarding'])
  t.equal(blame.code, 0, `after git branch -m master trunk: ${blame.stderr}`)
  t.match(blame.stdout, new RegExp(`v2 merge [0-9a-f]{12} ${id}`))
  t.match(blame.stdout, /^skills\/onboarding\/SKILL\.md on trunk /, 'and after a rename, its new name')
  t.equal(blame.stderr, '', 'a rename is followed silently')
  const again = await run(['propose', 'onboarding', '--lane', 't', '--json'])
  t.equal(again.code, 0, again.stderr)
})

t.test('a configuration naming a branch this repository never had (older inits wrote main) still works, with a note', async t => {
  const repo = tempDir(t)
  await git(repo, '-c', 'init.defaultBranch=master', 'init', '-q')
  t.equal((await exp(['init', '--example', 'onboarding', '--main', 'main'], {cwd: repo})).code, 0)
  t.match(fs.readFileSync(path.join(repo, '.research/config.yaml'), 'utf8'), /^main_branch: "main"$/m, '--main chooses')
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
