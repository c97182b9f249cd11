import fs from 'node:fs'
import path from 'node:path'
import type {Test} from 'tap'
import {FILE_MAX, type Workspace} from '../../src/workspace/port.js'
import {FileTooLargeError} from '../../src/errors/index.js'
import {tempDir} from '../helpers/repo.js'

/** A workspace whose main branch holds `files` in one commit, and its id. */
export type MakeWorkspace = (t: Test, files: Record<string, string>) => Promise<{ws: Workspace; main: string}>

const FILES = {'README.md': 'hello\n', 'params.json': '{"x": 1}\n', 'harness/eval.py': 'print(1)\n'}

/**
 * The Workspace port's contract: every adapter (git, memory) passes the same tests, as the
 * record store's adapters do (test/store/contract.ts).
 */
export function workspaceContract(t: Test, make: MakeWorkspace): void {
  t.test('files at a revision, trees and blobs', async t => {
    const {ws, main} = await make(t, FILES)
    t.equal(await ws.resolve('main'), main)
    t.equal(await ws.readRef('refs/heads/main'), main)
    t.equal((await ws.readFile(main, 'params.json'))?.toString(), '{"x": 1}\n')
    t.equal(await ws.readFile(main, 'missing'), undefined)
    t.same((await ws.listFiles(main, 'harness')).map(f => f.path), ['eval.py'])
    t.same((await ws.listFiles(main)).map(f => f.path).sort(), Object.keys(FILES).sort())
    const blob = (await ws.listFiles(main)).find(f => f.path === 'README.md')!.blob
    t.equal((await ws.readBlob(blob))?.toString(), 'hello\n')
    t.match(await ws.treeOf(main), /^[0-9a-f]{40}$/)
    t.same((await ws.listFiles(await ws.treeOf(main))).map(f => f.path).sort(), Object.keys(FILES).sort(), 'a tree id lists like its commit')
  })

  t.test('a file is found without being read, and one over the limit of a read is refused unread', async t => {
    const {ws, main} = await make(t, FILES)
    t.equal(await ws.hasFile(main, 'params.json'), true)
    t.equal(await ws.hasFile(main, 'harness/eval.py'), true)
    t.equal(await ws.hasFile(main, 'harness'), false, 'a folder is not a file')
    t.equal(await ws.hasFile(main, 'missing'), false)
    // what a hostile pull request can commit: a SKILL.md of 17 MiB (a few KB in a push)
    const big = Buffer.alloc(FILE_MAX + 1024 * 1024, 'x')
    const c = await ws.commitFiles({base: main, files: [{path: 'skills/a/SKILL.md', content: big}], message: 'a huge skill'})
    t.equal(await ws.hasFile(c, 'skills/a/SKILL.md'), true)
    const e = await ws.readFile(c, 'skills/a/SKILL.md').catch((x: unknown) => x)
    t.ok(e instanceof FileTooLargeError, 'over FILE_MAX: refused')
    t.match((e as Error).message, `skills/a/SKILL.md at ${c.slice(0, 12)} is ${big.length} bytes, more than the ${FILE_MAX} bytes exp reads`)
    t.equal((e as FileTooLargeError).code, 'E_TOO_LARGE')
    await t.rejects(ws.readFile(c, 'params.json', {max: 4}), {code: 'E_TOO_LARGE', message: /params.json at .* is 9 bytes, more than the 4 bytes/}, 'a caller can ask for less')
    t.equal((await ws.readFile(c, 'skills/a/SKILL.md', {max: Infinity}))?.length, big.length, 'or allow more')
  })

  t.test('a tree is listed without reading its files; listed with them, one over the limit is refused', async t => {
    const {ws, main} = await make(t, FILES)
    const withBytes = await ws.listFiles(main)
    t.same(await ws.listTree(main), withBytes.map(f => ({path: f.path, blob: f.blob})), 'the same paths and blob ids, in the same order')
    t.same(await ws.listTree(main, 'harness'), [{path: 'eval.py', blob: withBytes.find(f => f.path === 'harness/eval.py')!.blob}])
    t.same(await ws.listTree(await ws.treeOf(main)), await ws.listTree(main), 'a tree id lists like its commit')
    t.notOk('content' in (await ws.listTree(main))[0]!, 'no bytes')
    // a research repository's data set, or what an attempt commits
    const big = Buffer.alloc(FILE_MAX + 1024, 'd')
    const c = await ws.commitFiles({base: main, files: [{path: 'data/train.bin', content: big}], message: 'a data set'})
    t.same((await ws.listTree(c, 'data')).map(f => f.path), ['train.bin'])
    await t.rejects(ws.listFiles(c, 'data'), {code: 'E_TOO_LARGE', message: new RegExp(`data/train.bin at ${c.slice(0, 12)} is ${big.length} bytes, more than the ${FILE_MAX} bytes exp reads`)})
    t.same((await ws.listFiles(c, 'harness')).map(f => f.content.toString()), ['print(1)\n'], 'a small folder beside it reads')
    t.equal((await ws.listFiles(c, 'data', {max: Infinity}))[0]!.content.length, big.length, 'a caller can allow more')
  })

  t.test('which ids are commits it holds: asked once for many', async t => {
    const {ws, main} = await make(t, FILES)
    const a = await ws.commitFiles({base: main, files: [{path: 'params.json', content: Buffer.from('{"x": 3}\n')}], message: 'x = 3'})
    const tree = await ws.treeOf(main)
    const blob = (await ws.listTree(main)).find(f => f.path === 'README.md')!.blob
    const absent = 'f'.repeat(40)
    const got = await ws.commitsPresent([main, tree, blob, absent, a, main, 'main', '', `${main}\n${absent}`, '../HEAD'])
    t.same([...got].sort(), [main, a].sort(), 'the two commits; not a tree, a blob, an id it lacks, a branch name, or text that is not an id')
    t.same([...(await ws.commitsPresent([]))], [], 'nothing asked, nothing found')
    t.same([...(await ws.commitsPresent([absent]))], [])
  })

  t.test('commits, changed paths without rename detection, first parents, merge base', async t => {
    const {ws, main} = await make(t, FILES)
    const a = await ws.commitFiles({base: main, files: [{path: 'params.json', content: Buffer.from('{"x": 2}\n')}], message: 'x = 2'})
    t.not(a, main)
    t.same(await ws.changedPaths(main, a), ['params.json'])
    t.equal(await ws.treeOf(a) === (await ws.treeOf(main)), false)
    const same = await ws.commitFiles({base: main, files: [], message: 'nothing', parents: [main, a]})
    t.equal(await ws.treeOf(same), await ws.treeOf(main), 'no files: the base tree as it is')
    t.same((await ws.readCommit(same)).parents, [main, a])
    t.same((await ws.firstParents(same)).map(c => c.oid), [main, same])
    const b = await ws.commitFiles({base: main, files: [{path: 'other.txt', content: Buffer.from('b\n')}], message: 'b'})
    t.equal(await ws.mergeBase(a, b), main)
    t.equal(await ws.mergeBase(a, main), main)
  })

  t.test('paths, folder entries and blame', async t => {
    const {ws, main} = await make(t, FILES)
    const h = await ws.pathId(main, 'harness')
    t.match(h, {kind: 'tree', oid: /^[0-9a-f]{40}$/})
    t.same((await ws.entries(h!.oid)).map(e => [e.name, e.kind]), [['eval.py', 'blob']])
    t.match(await ws.pathId(main, 'harness/eval.py'), {kind: 'blob'})
    t.match(await ws.pathId(h!.oid, 'eval.py'), {kind: 'blob'}, 'a path inside a tree id')
    t.equal(await ws.pathId(main, 'nope'), undefined)
    t.same((await ws.entries(await ws.treeOf(main))).map(e => e.name).sort(), ['README.md', 'harness', 'params.json'])
    const two = await ws.commitFiles({base: main, files: [{path: 'README.md', content: Buffer.from('hello\nworld\n')}], message: 'a second line'})
    await ws.moveRef('refs/heads/main', two, main)
    const lines = await ws.blame('main', 'README.md')
    t.same(lines.map(l => [l.line, l.text, l.commit]), [[1, 'hello', main], [2, 'world', two]])
    t.same(lines.map(l => l.via), [main, two], 'on the first-parent line, a line comes with the commit that wrote it')
    // a side branch's line, merged: `via` is the merge on main's line, whatever commit wrote it
    const side = await ws.commitFiles({base: two, files: [{path: 'README.md', content: Buffer.from('hello\nthere\n')}], message: 'side\n\nExp-Attempt: at-000000000000000000000000'})
    const merge = await ws.commitFiles({base: side, parents: [two, side], files: [], message: 'merge side'})
    await ws.moveRef('refs/heads/main', merge, two)
    const after = await ws.blame('main', 'README.md')
    t.same(after.map(l => [l.text, l.via]), [['hello', main], ['there', merge]])
    t.ok([side, merge].includes(after[1]!.commit), 'the commit that wrote it: the side commit (git) or the merge (a first-parent-only blame)')
  })

  // Found by a review: a model's drafted reason put a NUL, an escape and a right-to-left override
  // into a proposal's commit and main's merge: `git fsck --strict` failed (nulInCommit), a push
  // to a remote that checks objects was refused, and `git log` cut the message, trailers and all.
  t.test('a commit message never carries a NUL, control or bidirectional character; its lines and trailers stay', async t => {
    const {ws, main} = await make(t, FILES)
    const c = await ws.commitFiles({base: main, files: [], message: 'exp: promote x\n\nwhy: `a`\u001b[2J\u202e\u0000 evil\r\u2028\u0085 \tend\n\nExp-Promotes: pr-1\nExp-Policy: 2 sha256:0\n'})
    const raw = (await ws.rawCommit(c)).toString('utf8')
    // eslint-disable-next-line no-control-regex -- the characters looked for
    t.notMatch(raw, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/, 'none in the commit object')
    t.equal((await ws.readCommit(c)).message, 'exp: promote x\n\nwhy: `a` [2J   evil    \tend\n\nExp-Promotes: pr-1\nExp-Policy: 2 sha256:0\n', 'each a space; newlines and tabs as they were')
  })

  t.test('refs move only from where they are expected', async t => {
    const {ws, main} = await make(t, FILES)
    const a = await ws.commitFiles({base: main, files: [{path: 'f', content: Buffer.from('1')}], message: 'f'})
    await ws.moveRef('refs/heads/topic', a, undefined)
    t.equal(await ws.readRef('refs/heads/topic'), a)
    await t.rejects(ws.moveRef('refs/heads/topic', main, main), {code: 'E_CONFLICT'}, 'compare and swap')
    t.equal(await ws.readRef('refs/heads/topic'), a, 'unchanged')
    // a delete is a compare and swap too: a branch committed to since is kept
    await t.rejects(ws.deleteRef('refs/heads/topic', main), {code: 'E_CONFLICT'}, 'not deleted from where it is not')
    t.equal(await ws.readRef('refs/heads/topic'), a, 'kept')
    await ws.deleteRef('refs/heads/topic', a)
    t.equal(await ws.readRef('refs/heads/topic'), undefined)
    await ws.deleteRef('refs/heads/topic', a)
    t.equal(await ws.readRef('refs/heads/topic'), undefined, 'gone already: no error')
  })

  t.test('linked work trees: on a new branch, edited and committed; detached; a rename is a deletion and an addition', async t => {
    const {ws, main} = await make(t, FILES)
    const dir = path.join(tempDir(t), 'wt')
    await ws.addWorktree(dir, {commit: main, branch: 'exp/attempt/x'})
    t.equal(fs.readFileSync(path.join(dir, 'params.json'), 'utf8'), '{"x": 1}\n')
    t.equal(await ws.commitWorktree(dir, 'nothing changed'), main, 'nothing to commit: the branch stays')
    fs.writeFileSync(path.join(dir, 'params.json'), '{"x": 3}\n')
    fs.renameSync(path.join(dir, 'harness/eval.py'), path.join(dir, 'harness/eval2.py'))
    const c = await ws.commitWorktree(dir, 'x = 3')
    t.equal(await ws.readRef('refs/heads/exp/attempt/x'), c, 'the branch moved')
    t.same((await ws.changedPaths(main, c)).sort(), ['harness/eval.py', 'harness/eval2.py', 'params.json'])
    await ws.addWorktree(dir, {commit: main, branch: 'exp/attempt/x'})
    t.equal(fs.readFileSync(path.join(dir, 'params.json'), 'utf8'), '{"x": 3}\n', 'adding it again keeps what is there')
    const detached = path.join(tempDir(t), 'd')
    await ws.addWorktree(detached, {commit: main})
    t.equal(fs.readFileSync(path.join(detached, 'params.json'), 'utf8'), '{"x": 1}\n')
    await ws.removeWorktree(detached)
    t.notOk(fs.existsSync(detached))
    await ws.removeWorktree(dir)
    t.equal(await ws.readRef('refs/heads/exp/attempt/x'), c, 'removing a work tree keeps its branch')
  })

  t.test('workTreeWith names the work tree a branch is checked out in, and none for a branch no work tree has', async t => {
    const {ws} = await make(t, FILES)
    const head = ws.checkedOutBranch()
    if (head) t.ok(await ws.workTreeWith(head), `${head} is checked out here`)
    t.equal(await ws.workTreeWith('refs/heads/never-checked-out'), undefined)
  })

  t.test('a symbolic link made in a work tree is committed as a link (its target, never what it points to), and named by linkedPaths', async t => {
    const {ws, main} = await make(t, FILES)
    const outside = tempDir(t)
    fs.writeFileSync(path.join(outside, 'secret.json'), '{"held-out": true}\n')
    const dir = path.join(tempDir(t), 'wt')
    await ws.addWorktree(dir, {commit: main, branch: 'exp/attempt/link'})
    fs.rmSync(path.join(dir, 'params.json'))
    fs.symlinkSync(path.join(outside, 'secret.json'), path.join(dir, 'params.json'))
    fs.symlinkSync('../harness/eval.py', path.join(dir, 'data-link'))
    const c = await ws.commitWorktree(dir, 'links')
    t.same((await ws.changedPaths(main, c)).sort(), ['data-link', 'params.json'])
    t.same((await ws.linkedPaths(c, ['data-link', 'params.json', 'harness/eval.py', 'missing'])).sort(), ['data-link', 'params.json'])
    t.same(await ws.linkedPaths(main, ['params.json']), [], 'a regular file is not a link')
    t.equal((await ws.readFile(c, 'params.json'))?.toString(), path.join(outside, 'secret.json'), "the link's target, not the secret")
    // written over by a regular file, it is a regular file again
    const d = await ws.commitFiles({base: c, files: [{path: 'params.json', content: Buffer.from('{"x": 2}\n')}], message: 'regular again'})
    t.same(await ws.linkedPaths(d, ['params.json', 'data-link']), ['data-link'])
    await ws.removeWorktree(dir)
  })

  t.test('exclusive: one holder at a time, released when the holder throws', async t => {
    const {ws} = await make(t, FILES)
    const order: string[] = []
    const hold = (name: string, ms: number) =>
      ws.exclusive(async () => {
        order.push(`${name}+`)
        await new Promise(r => setTimeout(r, ms))
        order.push(`${name}-`)
        return name
      })
    t.same(await Promise.all([hold('a', 60), hold('b', 10)]), ['a', 'b'])
    t.ok(order.join(' ') === 'a+ a- b+ b-' || order.join(' ') === 'b+ b- a+ a-', `never both inside: ${order.join(' ')}`)
    await t.rejects(ws.exclusive(async () => { throw new Error('boom') }), /boom/)
    t.equal(await ws.exclusive(async () => 'again'), 'again', 'the failed holder let go')
  })
}
