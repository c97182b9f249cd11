import {NO_HOOKS, runGit, hasNativeGit} from '../../git/run.js'
import {encodeCommit, OBJECT_MAX, ObjectTooLarge, parseCommit, type Signature} from './objects.js'
import {MutableTree, lookupPath} from './tree.js'
import {LooseSink} from './writer.js'
import {RefLock} from '../../git/lock.js'
import {readRef} from '../../git/refs.js'
import {linkedWorkTrees} from '../../git/worktrees.js'
import type {GitRecordStore} from './store.js'
import {commitText} from '../../records/summary.js'
import {CommitTooLargeError, ExpError, FileTooLargeError, UsageError, WorkTreeBehindError, WorktreeError, refMoved} from '../../errors/index.js'
import fs, {existsSync, readFileSync, realpathSync} from 'node:fs'
import path from 'node:path'
import type {CommitInfo, FileWrite} from '../../workspace/port.js'

/**
 * Ordinary commits on ordinary branches, built in process without touching HEAD, the
 * index or the work tree: proposal branches and promotion merges. Commit times derive
 * from the parents (the newest parent + 1 s), so the same starting state always makes
 * the same commit ids.
 */
export type {FileWrite, CommitInfo}

export async function readCommit(store: GitRecordStore, oid: string): Promise<CommitInfo> {
  const o = await readCommitObject(store, oid)
  if (o.type !== 'commit') throw new ExpError('E_NOT_FOUND', `${oid} is a ${o.type}, not a commit`)
  const c = parseCommit(o.data, oid)
  const m = /^committer .* (\d+) [+-]\d{4}$/m.exec(o.data.toString('utf8'))
  return {oid, tree: c.tree, parents: c.parents, message: c.message, time: m ? Number(m[1]) : 0}
}

/**
 * The commits among `oids` the object database holds: one `git cat-file --batch-check` for
 * all of them (types and sizes, no object read), or one read each without native git.
 */
export async function commitsPresent(store: GitRecordStore, oids: readonly string[]): Promise<Set<string>> {
  const asked = [...new Set(oids)].filter(o => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(o))
  const out = new Set<string>()
  if (!asked.length) return out
  if (!store.native) {
    for (const oid of asked) {
      const o = await store.reader.read(oid, OBJECT_MAX).catch(() => undefined)
      if (o?.type === 'commit') out.add(oid)
    }
    return out
  }
  const r = await runGit(['--git-dir', store.commonDir, 'cat-file', '--batch-check'], {cwd: store.commonDir, input: `${asked.join('\n')}\n`})
  // one line per id asked, in order: `<oid> <type> <size>`, or `<oid> missing`
  for (const line of r.stdout.toString('latin1').split('\n')) {
    const [oid, type] = line.split(' ')
    if (type === 'commit' && oid) out.add(oid)
  }
  return out
}

/** A commit's object, refused unread over OBJECT_MAX (a hostile branch's commit of hundreds of MB). */
export async function readCommitObject(store: GitRecordStore, oid: string): Promise<{type: string; data: Buffer}> {
  try {
    return await store.reader.read(oid, OBJECT_MAX)
  } catch (e) {
    if (e instanceof ObjectTooLarge) throw new CommitTooLargeError(oid, e.size, e.max)
    throw e
  }
}

/** A file's bytes at a commit (undefined: absent, or a folder); over `max` bytes it is refused unread (FileTooLargeError). */
export async function readFileAt(store: GitRecordStore, commit: string, file: string, max: number): Promise<Buffer | undefined> {
  const {tree} = await readCommit(store, commit)
  const e = await lookupPath(store.reader, tree, file)
  if (!e || e.mode === '40000') return undefined
  try {
    return (await store.reader.read(e.oid, Number.isFinite(max) ? max : undefined)).data
  } catch (err) {
    if (err instanceof ObjectTooLarge) throw new FileTooLargeError(file, commit, err.size, max)
    throw err
  }
}

async function identity(store: GitRecordStore, time: number): Promise<Signature> {
  return {name: (await store.config('user.name')) ?? 'exp', email: (await store.config('user.email')) ?? 'exp@exp.invalid', time}
}

/** A commit of `files` written over `base`'s tree (objects only; no ref moves); its message with no control character (commitText). */
export async function commitFiles(store: GitRecordStore, o: {base: string; files: FileWrite[]; message: string; parents?: string[]}): Promise<string> {
  const parents = o.parents ?? [o.base]
  const times = await Promise.all(parents.map(async p => (await readCommit(store, p)).time))
  const baseTree = (await readCommit(store, o.base)).tree
  const tree = new MutableTree(store.reader, baseTree)
  const sink = new LooseSink(store.commonDir)
  for (const f of o.files) await tree.insert(f.path, sink.put('blob', f.content))
  // no files: the base's tree as it is (a merge that takes the branch's tree)
  const root = o.files.length ? tree.write(sink) : baseTree
  const who = await identity(store, Math.max(...times) + 1)
  const oid = sink.put('commit', encodeCommit({tree: root, parents, author: who, committer: who, message: commitText(o.message)}))
  await sink.flush()
  return oid
}

/** Move a branch (or any ref) from `expected` to `next` under git's lock, or fail if it moved. */
export async function moveRef(store: GitRecordStore, ref: string, next: string, expected: string | undefined): Promise<void> {
  const lock = await RefLock.acquire(store.commonDir, ref)
  if (lock.old !== expected) {
    await lock.release()
    throw refMoved(ref, lock.old, expected)
  }
  await lock.commit(next)
}

/**
 * Delete a ref while it is at `expected`: the old value is checked under git's lock of the
 * ref, so a commit made on the branch meanwhile keeps it (E_CONFLICT). Gone already: nothing
 * to do. Without native git, isomorphic-git removes the loose ref and its packed-refs line
 * while exp holds the same lock.
 */
export async function deleteRef(store: GitRecordStore, ref: string, expected: string): Promise<void> {
  if (store.native && (await hasNativeGit())) {
    const r = await runGit(['--git-dir', store.commonDir, 'update-ref', '-d', ref, expected], {cwd: store.commonDir, allowFail: true})
    if (r.code === 0) return
    const now = await readRef(store.commonDir, ref)
    if (now !== undefined) throw refMoved(ref, now, expected)
    return
  }
  const lock = await RefLock.acquire(store.commonDir, ref)
  try {
    if (lock.old === undefined) return
    if (lock.old !== expected) throw refMoved(ref, lock.old, expected)
    // (loaded here: most commands never need it)
    const {default: git} = await import('isomorphic-git')
    await git.deleteRef({fs, gitdir: store.commonDir, ref})
  } finally {
    await lock.release()
  }
}

/** The branch HEAD points to in this work tree (undefined: detached or bare). */
export function checkedOutBranch(store: GitRecordStore): string | undefined {
  if (!store.repo.workDir) return undefined
  try {
    const head = readFileSync(path.join(store.repo.gitDir, 'HEAD'), 'utf8').trim()
    return head.startsWith('ref: ') ? head.slice(5) : undefined
  } catch {
    return undefined
  }
}

/**
 * The folder of a work tree of this repository that has `ref` checked out: this one, or a
 * linked one (`git worktree add`), or the main one when this is linked. Undefined when none has.
 */
export async function workTreeWith(store: GitRecordStore, ref: string): Promise<string | undefined> {
  if (checkedOutBranch(store) === ref) return store.repo.workDir
  if (!(await hasNativeGit())) return undefined
  const r = await runGit([...NO_HOOKS, '--git-dir', store.commonDir, 'worktree', 'list', '--porcelain'], {cwd: store.commonDir, allowFail: true})
  if (r.code !== 0) return undefined
  for (const block of r.stdout.toString('utf8').split('\n\n')) {
    const lines = block.split('\n')
    const dir = lines.find(l => l.startsWith('worktree '))?.slice('worktree '.length)
    if (dir && lines.includes(`branch ${ref}`) && !lines.includes('bare') && existsSync(dir)) return dir
  }
  return undefined
}

/**
 * How exp's git commands are pointed at a work tree of this repository: the one exp runs in by
 * finding it from there as git does, the main work tree by the common git dir, and a linked
 * one (an attempt's, a proposal's) by the administrative folder git's own registry keeps for it
 * (`<common dir>/worktrees/<name>`, whose `gitdir` file names the folder's `.git`). Never by the
 * linked folder's own `.git`: whoever edits the folder can replace that, with a file naming the
 * main repository's git dir (a commit made there landed on the checked-out main branch,
 * protected files and all) or with a repository of its own whose config runs a filter as this
 * user. Throws WorktreeError when no work tree of this repository is at `dir`.
 */
export function workTreeArgs(store: GitRecordStore, dir: string, commit = false): string[] {
  const real = (p: string) => {
    try {
      return realpathSync(p)
    } catch {
      return path.resolve(p)
    }
  }
  const want = real(dir)
  if (store.repo.workDir && real(store.repo.workDir) === want) return []
  if (path.basename(store.commonDir) === '.git' && real(path.dirname(store.commonDir)) === want) return ['--git-dir', store.commonDir, '--work-tree', dir]
  for (const linked of linkedWorkTrees(store.commonDir)) if (real(linked.dir) === want) return ['--git-dir', linked.admin, '--work-tree', dir]
  throw new WorktreeError(dir, 'git names no work tree of this repository there (`git worktree list`): its .git was replaced or the folder moved', commit, 'exp runs git in a work tree only as git registered it; remove the folder and open it again (`exp attempt new`), or `git worktree repair` it if it moved')
}

/** Tracked files with uncommitted changes in a work tree (default: this one; untracked files do not count). */
export async function dirtyFiles(store: GitRecordStore, dir = store.repo.workDir): Promise<string[]> {
  if (!dir) return []
  const r = await runGit([...NO_HOOKS, ...workTreeArgs(store, dir), 'status', '--porcelain', '--untracked-files=no'], {cwd: dir})
  return r.stdout.toString('utf8').split('\n').filter(Boolean).map(l => l.slice(3))
}

/** Whether the index and the tracked files of a work tree are exactly `commit`'s tree (untracked files do not count). */
export async function treeIsAt(store: GitRecordStore, commit: string, dir = store.repo.workDir): Promise<boolean> {
  if (!dir) return false
  const at = workTreeArgs(store, dir)
  await runGit([...NO_HOOKS, ...at, 'update-index', '-q', '--refresh'], {cwd: dir, allowFail: true})
  const index = await runGit([...NO_HOOKS, ...at, 'diff-index', '--cached', '--quiet', commit, '--'], {cwd: dir, allowFail: true})
  if (index.code !== 0) return false
  return (await runGit([...NO_HOOKS, ...at, 'diff-files', '--quiet'], {cwd: dir, allowFail: true})).code === 0
}

/**
 * Bring the index and work tree from `from` to `to`, as `git merge` does after a fast-forward:
 * the index's file times refreshed first (a file touched or copied with its content unchanged
 * is not a change, but read-tree refuses it as "not uptodate" until then), then read-tree.
 * A tracked file that really changed is not overwritten: with dryRun (before the branch
 * moves) that is E_DIRTY_TREE and nothing changes; after, WorkTreeBehindError.
 */
export async function updateWorkTree(store: GitRecordStore, from: string, to: string, branch = 'the branch', o: {dryRun?: boolean; dir?: string} = {}): Promise<void> {
  const cwd = o.dir ?? store.repo.workDir
  if (!cwd) return
  const at = workTreeArgs(store, cwd)
  // (exit 1 when files did change: read-tree says which)
  await runGit([...NO_HOOKS, ...at, 'update-index', '-q', '--refresh'], {cwd, allowFail: true})
  const r = await runGit([...NO_HOOKS, ...at, 'read-tree', '-m', '-u', ...(o.dryRun ? ['-n'] : []), from, to], {cwd, allowFail: true})
  if (r.code === 0) return
  const detail = r.stderr.trim().split('\n').filter(Boolean).join('; ') || `git read-tree exited ${r.code}`
  if (o.dryRun) throw new ExpError('E_DIRTY_TREE', `${branch} is checked out and the promotion would overwrite uncommitted changes: ${detail}`, {data: {branch}, hint: 'commit or stash them, then promote again (a promotion updates the work tree like git merge)'})
  throw new WorkTreeBehindError(branch, from, to, detail)
}

/**
 * A revision as git resolves a name (gitrevisions): `<rev>` itself when it is a ref or a name
 * like HEAD, then refs/<rev>, refs/tags/, refs/heads/, refs/remotes/ and refs/remotes/<rev>/HEAD,
 * the first that exists; a tag is peeled to its commit. (Branches were looked up before tags: a
 * branch pushed under the name of the tag a contract's baseline names replaced that baseline.)
 * Anything else (`main~2`, an abbreviated id) is left to `git rev-parse`.
 */
export async function resolveRev(store: GitRecordStore, rev: string): Promise<string | undefined> {
  if (/^[0-9a-f]{40}$/.test(rev)) return rev
  const own = rev.startsWith('refs/') || /^[A-Z_]+$/.test(rev) ? [rev] : []
  // git's order for a short name (a tag before a branch or a remote's branch). A short name
  // that more than one of them holds, at different commits, is refused: anyone who may push a
  // branch may push a tag `origin/main`, and git would take it for the base a gate judges on
  const found: {ref: string; commit: string | undefined}[] = []
  for (const ref of [...own, `refs/${rev}`, `refs/tags/${rev}`, `refs/heads/${rev}`, `refs/remotes/${rev}`, `refs/remotes/${rev}/HEAD`]) {
    const v = await readRef(store.commonDir, ref)
    if (!v) continue
    // (an annotated tag names a tag object: git peels it)
    const type = await store.reader.read(v, OBJECT_MAX).then(o => o.type, () => undefined)
    found.push({ref, commit: type === 'commit' ? v : await peel(store, ref)})
    if (own.length) break
  }
  if (!found.length) return peel(store, rev)
  const other = found.find(f => f.commit !== found[0]!.commit)
  if (other) {
    const named = found.map(f => `${f.ref} (${f.commit?.slice(0, 12) ?? 'no commit'})`).join(', ')
    throw new UsageError(`${rev} is ambiguous: it names ${named}; git would take ${found[0]!.ref}`, `name the ref meant in full, e.g. ${found.find(f => !f.ref.startsWith('refs/tags/'))?.ref ?? found[0]!.ref}; or delete the ref that should not be there`)
  }
  return found[0]!.commit
}

async function peel(store: GitRecordStore, rev: string): Promise<string | undefined> {
  if (!(await hasNativeGit())) return undefined
  const r = await runGit(['--git-dir', store.commonDir, 'rev-parse', '--verify', '-q', '--end-of-options', `${rev}^{commit}`], {cwd: store.commonDir, allowFail: true})
  return r.code === 0 ? r.stdout.toString().trim() : undefined
}
