import t, {type Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {workspaceContract} from './contract.js'
import {git, makeRepo} from '../helpers/repo.js'
import {GitRecordStore} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {MemoryWorkspace} from '../../src/workspace/memory.js'

/** A repository with `files` committed on main in one commit, and that commit's id. */
async function committedRepo(t: Test, files: Record<string, string>): Promise<{repo: string; main: string}> {
  const repo = await makeRepo(t, {empty: true})
  for (const [p, c] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo, p)), {recursive: true})
    fs.writeFileSync(path.join(repo, p), c)
  }
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'init')
  return {repo, main: (await git(repo, 'rev-parse', 'main')).trim()}
}

t.test('the git adapter', async t => {
  workspaceContract(t, async (t, files) => {
    const {repo, main} = await committedRepo(t, files)
    const store = await GitRecordStore.open(repo)
    t.teardown(() => store.close())
    return {ws: new GitWorkspace(store), main}
  })
})

t.test('the memory adapter', async t => {
  workspaceContract(t, async (_t, files) => {
    const ws = new MemoryWorkspace()
    return {ws, main: ws.seed('main', files)}
  })
})

t.test('the git adapter without native git finds commits by reading each id', async t => {
  const {repo, main} = await committedRepo(t, {'a.txt': 'a\n'})
  const tree = (await git(repo, 'rev-parse', 'main^{tree}')).trim()
  const store = await GitRecordStore.open(repo, {native: false})
  t.teardown(() => store.close())
  t.same([...(await new GitWorkspace(store).commitsPresent([tree, main, 'e'.repeat(40), 'main']))], [main])
})

// (it once left the branch where it was, silently: a promoted attempt's branch stayed behind)
t.test('the git adapter without native git deletes a branch under its lock, loose or packed, and only from where it is', async t => {
  const {repo, main} = await committedRepo(t, {'a.txt': 'a\n'})
  // (as on a machine without a git binary: exp's own reads and writes only)
  process.env.EXP_NO_NATIVE_GIT = '1'
  t.teardown(() => delete process.env.EXP_NO_NATIVE_GIT)
  await git(repo, 'branch', 'loose', main)
  await git(repo, 'branch', 'packed', main)
  await git(repo, 'pack-refs', '--all')
  await git(repo, 'branch', '-f', 'loose', main)
  const store = await GitRecordStore.open(repo, {native: false})
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  await t.rejects(ws.deleteRef('refs/heads/packed', 'e'.repeat(40)), {code: 'E_CONFLICT'}, 'not from where it is not')
  for (const b of ['loose', 'packed']) {
    await ws.deleteRef(`refs/heads/${b}`, main)
    t.equal(await ws.readRef(`refs/heads/${b}`), undefined, `${b} is gone`)
  }
  await ws.deleteRef('refs/heads/packed', main)
  t.same((await git(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).trim().split('\n'), ['refs/heads/main'], 'git agrees; no lock is left')
  t.same(fs.readdirSync(path.join(repo, '.git', 'refs', 'heads')).filter(f => f.endsWith('.lock')), [])
})

t.test('the git adapter writes a file over an executable (it stays executable) and over a symbolic link (a regular file now)', async t => {
  const repo = await makeRepo(t, {empty: true})
  fs.writeFileSync(path.join(repo, 'run.sh'), '#!/bin/sh\necho 1\n', {mode: 0o755})
  fs.symlinkSync('run.sh', path.join(repo, 'link'))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'init')
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  const c = await ws.commitFiles({base: main, files: [{path: 'run.sh', content: Buffer.from('#!/bin/sh\necho 2\n')}, {path: 'link', content: Buffer.from('plain\n')}], message: 'over both'})
  const modes = Object.fromEntries((await git(repo, 'ls-tree', c)).trim().split('\n').map(l => [l.split('\t')[1], l.split(' ')[0]]))
  t.same(modes, {link: '100644', 'run.sh': '100755'})
  t.same(await ws.linkedPaths(c, ['link', 'run.sh']), [])
  t.same(await ws.linkedPaths(main, ['link', 'run.sh']), ['link'])
})

t.test('the git adapter names a submodule (a gitlink) among the linked paths', async t => {
  const {repo, main} = await committedRepo(t, {'a.txt': 'a\n'})
  await git(repo, 'update-index', '--add', '--cacheinfo', `160000,${main},skills/onboarding/sub`)
  await git(repo, 'commit', '-qm', 'a submodule')
  const head = (await git(repo, 'rev-parse', 'main')).trim()
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  t.same(await ws.changedPaths(main, head), ['skills/onboarding/sub'])
  t.same(await ws.linkedPaths(head, ['skills/onboarding/sub', 'a.txt']), ['skills/onboarding/sub'])
})

// A hostile branch: a commit whose message is 40 MB (~40 KB once packed for a push). The git
// adapter names it and its size, and reads none of it.
t.test('the git adapter refuses a commit over 16 MiB unread, naming it', async t => {
  const repo = await makeRepo(t, {empty: true})
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'init')
  const msg = path.join(repo, '.git', 'huge-message')
  fs.writeFileSync(msg, Buffer.alloc(40 * 1024 * 1024, 'x'))
  const huge = (await git(repo, 'commit-tree', '-p', 'HEAD', 'HEAD^{tree}', '-F', msg)).trim()
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  const reads: [string, () => Promise<unknown>][] = [['readCommit', () => ws.readCommit(huge)], ['rawCommit', () => ws.rawCommit(huge)], ['readFile', () => ws.readFile(huge, 'a.txt')]]
  for (const [name, read] of reads) await t.rejects(read(), {code: 'E_TOO_LARGE', message: new RegExp(`^commit ${huge.slice(0, 12)} is \\d+ bytes`)}, name)
  const e = (await ws.readCommit(huge).catch((x: unknown) => x)) as {message: string; hint?: string}
  t.match(e.message, /is \d+ bytes, more than the 16777216 bytes exp reads of a commit/)
  t.match(e.hint, /git rebase -i/)
})

// A research repository keeps its data next to its code: the evaluator's harness digest and
// the research loop list whole trees. Listing reads no file: a blob that is not even there
// (a partial clone, or a damaged object) does not stop it; reading the files does.
t.test('the git adapter lists a tree without reading a blob of it', async t => {
  const repo = await makeRepo(t, {empty: true})
  fs.mkdirSync(path.join(repo, 'data'))
  fs.writeFileSync(path.join(repo, 'data', 'set.bin'), 'rows\n')
  fs.writeFileSync(path.join(repo, 'eval.py'), 'print(1)\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'init')
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  const blob = (await git(repo, 'rev-parse', 'main:data/set.bin')).trim()
  fs.rmSync(path.join(repo, '.git', 'objects', blob.slice(0, 2), blob.slice(2)))
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  t.same(await ws.listTree(main), [{path: 'data/set.bin', blob}, {path: 'eval.py', blob: (await git(repo, 'rev-parse', 'main:eval.py')).trim()}])
  await t.rejects(ws.listFiles(main), 'reading them needs the blob')
})

t.test('the git adapter resolves a name as git does, and refuses one a tag and a branch hold at different commits; an annotated tag peeled', async t => {
  const {repo, main} = await committedRepo(t, {'eval.mjs': 'honest\n'})
  await git(repo, 'tag', 'v1')
  await git(repo, 'tag', '-a', 'v1a', '-m', 'annotated')
  // a branch pushed under the tag's name, with another evaluator
  await git(repo, 'checkout', '-qb', 'v1')
  fs.writeFileSync(path.join(repo, 'eval.mjs'), 'other\n')
  await git(repo, 'commit', '-qam', 'branch v1')
  const branch = (await git(repo, 'rev-parse', 'refs/heads/v1')).trim()
  await git(repo, 'checkout', '-q', 'main')
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  // (git takes the tag; a branch pushed under a tag's name, or a tag under a branch's, is how a
  // pull request chose the base a gate judged on: such a name is refused, docs/trust.md)
  await t.rejects(ws.resolve('v1'), {code: 'E_USAGE', message: /v1 is ambiguous: it names refs\/tags\/v1 \([0-9a-f]{12}\), refs\/heads\/v1/})
  t.equal((await git(repo, 'rev-parse', 'v1^{commit}')).trim(), main)
  t.equal(await ws.resolve('tags/v1'), main, 'the tag when asked for by its longer name')
  t.equal(await ws.resolve('heads/v1'), branch, 'the branch when asked for by its longer name')
  t.equal(await ws.resolve('refs/heads/v1'), branch)
  t.equal(await ws.resolve('v1a'), main, 'an annotated tag is its commit')
  t.equal(await ws.resolve('main~0'), main, 'what is not a name is left to git')
  t.equal(await ws.resolve('--all'), undefined, 'an option is no revision')
})

// found comparing what git's own config changes: blame.ignoreRevsFile gave the lines of the
// commits it lists to their parents, in exp's blame and the provenance built on it
t.test("the git adapter's blame is git's whatever blame.ignoreRevsFile says", async t => {
  const {repo, main} = await committedRepo(t, {'README.md': 'hello\nworld\n'})
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  const two = await ws.commitFiles({base: main, files: [{path: 'README.md', content: Buffer.from('hello\nWORLD\n')}], message: 'line 2 rewritten'})
  await ws.moveRef('refs/heads/main', two, main)
  fs.writeFileSync(path.join(repo, 'ignored-revs'), `${two}\n`)
  await git(repo, 'config', 'blame.ignoreRevsFile', path.join(repo, 'ignored-revs'))
  t.match(await git(repo, 'blame', '--porcelain', 'main', '--', 'README.md'), new RegExp(`^${main} \\d+ 2`, 'm'), "git's own blame now gives line 2 to the first commit")
  const lines = await ws.blame('main', 'README.md')
  t.same(lines.map(l => [l.line, l.commit, l.via]), [[1, main, main], [2, two, two]], 'exp: the commit that wrote each line')
})
