import {NO_HOOKS, runGit} from '../git/run.js'
import {RefLock} from '../git/lock.js'
import {checkedOutBranch, commitFiles, commitsPresent, deleteRef, dirtyFiles, treeIsAt, moveRef, readCommit, readCommitObject, readFileAt, resolveRev, updateWorkTree, workTreeArgs, workTreeWith} from '../store/git/commits.js'
import {blameFile, firstParentLine} from '../store/git/history.js'
import {readRef} from '../git/refs.js'
import {diffTrees, lookupPath, lookupPaths, readTree} from '../store/git/tree.js'
import {ObjectTooLarge} from '../store/git/objects.js'
import type {GitRecordStore} from '../store/git/store.js'
import {commitText} from '../records/summary.js'
import {ExpError, FileTooLargeError, WorktreeError} from '../errors/index.js'
import {existsSync, lstatSync, readFileSync} from 'node:fs'
import {rm} from 'node:fs/promises'
import fs from 'node:fs'
import path from 'node:path'
import {FILE_MAX, type BlamedLine, type CommitInfo, type FileWrite, type TreeEntry, type TreeFile, type Workspace} from './port.js'

/** The git adapter of the Workspace port, over the repository of a git record store. */
export class GitWorkspace implements Workspace {
  constructor(private readonly store: GitRecordStore) {}

  get root(): string | undefined {
    return this.store.repo.workDir
  }

  resolve(rev: string): Promise<string | undefined> {
    return resolveRev(this.store, rev)
  }

  readRef(ref: string): Promise<string | undefined> {
    return readRef(this.store.commonDir, ref)
  }

  readCommit(oid: string): Promise<CommitInfo> {
    return readCommit(this.store, oid)
  }

  commitsPresent(oids: readonly string[]): Promise<Set<string>> {
    return commitsPresent(this.store, oids)
  }

  async rawCommit(oid: string): Promise<Buffer> {
    const o = await readCommitObject(this.store, oid)
    if (o.type !== 'commit') throw new ExpError('E_NOT_FOUND', `${oid} is a ${o.type}, not a commit`)
    return o.data
  }

  async readBlob(oid: string): Promise<Buffer | undefined> {
    try {
      const o = await this.store.reader.read(oid)
      return o.type === 'blob' ? o.data : undefined
    } catch {
      return undefined
    }
  }

  readFile(commit: string, path: string, opts: {max?: number} = {}): Promise<Buffer | undefined> {
    return readFileAt(this.store, commit, path, opts.max ?? FILE_MAX)
  }

  async hasFile(commit: string, path: string): Promise<boolean> {
    const e = await lookupPath(this.store.reader, (await readCommit(this.store, commit)).tree, path)
    return !!e && e.mode !== '40000' && e.mode !== '160000'
  }

  async listFiles(commitOrTree: string, dir?: string, opts: {max?: number} = {}): Promise<TreeFile[]> {
    const max = opts.max ?? FILE_MAX
    const out: TreeFile[] = []
    for (const e of await this.listTree(commitOrTree, dir)) {
      try {
        out.push({...e, content: (await this.store.reader.read(e.blob, Number.isFinite(max) ? max : undefined)).data})
      } catch (err) {
        if (err instanceof ObjectTooLarge) throw new FileTooLargeError(dir ? `${dir.replace(/\/$/, '')}/${e.path}` : e.path, commitOrTree, err.size, max)
        throw err
      }
    }
    return out
  }

  async listTree(commitOrTree: string, dir?: string): Promise<TreeEntry[]> {
    const o = await this.store.reader.read(commitOrTree)
    let root = commitOrTree
    if (o.type === 'commit') root = (await readCommit(this.store, commitOrTree)).tree
    else if (o.type !== 'tree') throw new ExpError('E_NOT_FOUND', `${commitOrTree} is a ${o.type}, not a commit or tree`)
    if (dir) {
      const e = await lookupPath(this.store.reader, root, dir)
      if (!e || e.mode !== '40000') return []
      root = e.oid
    }
    const out: TreeEntry[] = []
    const walk = async (tree: string, prefix: string): Promise<void> => {
      for (const e of await readTree(this.store.reader, tree)) {
        const p = prefix ? `${prefix}/${e.name}` : e.name
        if (e.mode === '40000') await walk(e.oid, p)
        else if (e.mode !== '160000') out.push({path: p, blob: e.oid})
      }
    }
    await walk(root, '')
    return out
  }

  firstParents(tip: string): Promise<CommitInfo[]> {
    return firstParentLine(this.store, tip)
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    const r = await runGit(['--git-dir', this.store.commonDir, 'merge-base', a, b], {cwd: this.store.commonDir, allowFail: true})
    return r.code === 0 ? r.stdout.toString().trim() || undefined : undefined
  }

  async shallow(): Promise<boolean> {
    return fs.existsSync(path.join(this.store.commonDir, 'shallow'))
  }

  async changedPaths(from: string, to: string): Promise<string[]> {
    // in this process (trees cached): the gate, attempts and the trust checks of proposals ask
    // often. One read at a time: two at once that both fail (objects this clone lacks) could
    // leave the reader with a request never answered, and the command ended with exit 13
    const a = await this.treeOf(from)
    const b = await this.treeOf(to)
    return diffTrees(this.store.reader, a, b)
  }

  async linkedPaths(commit: string, paths: readonly string[]): Promise<string[]> {
    if (!paths.length) return []
    const found = await lookupPaths(this.store.reader, (await readCommit(this.store, commit)).tree, paths)
    return paths.filter(p => {
      const mode = found.get(p)?.mode
      return mode === '120000' || mode === '160000'
    })
  }

  commitFiles(o: {base: string; files: FileWrite[]; message: string; parents?: string[]}): Promise<string> {
    return commitFiles(this.store, o)
  }

  moveRef(ref: string, next: string, expected: string | undefined): Promise<void> {
    return moveRef(this.store, ref, next, expected)
  }

  deleteRef(ref: string, expected: string): Promise<void> {
    return deleteRef(this.store, ref, expected)
  }

  checkedOutBranch(): string | undefined {
    return checkedOutBranch(this.store)
  }

  workTreeWith(ref: string): Promise<string | undefined> {
    return workTreeWith(this.store, ref)
  }

  dirtyFiles(dir?: string): Promise<string[]> {
    return dirtyFiles(this.store, dir)
  }

  treeIsAt(commit: string, dir?: string): Promise<boolean> {
    return treeIsAt(this.store, commit, dir)
  }

  updateWorkTree(from: string, to: string, o: {dryRun?: boolean; dir?: string} = {}): Promise<void> {
    const here = !o.dir || o.dir === this.store.repo.workDir
    return updateWorkTree(this.store, from, to, here ? (checkedOutBranch(this.store) ?? 'HEAD').replace(/^refs\/heads\//, '') : `the branch checked out at ${o.dir}`, o)
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    // git's lockfile protocol on a name no ref can have: a promotion of another lane updating
    // the work tree must not look like uncommitted changes to this one (git status sees the
    // new HEAD before read-tree has written its files)
    const lock = await RefLock.acquire(this.store.commonDir, 'exp/worktree', {timeoutMs: 120_000})
    try {
      return await fn()
    } finally {
      await lock.release()
    }
  }

  async addWorktree(dir: string, o: {commit: string; branch?: string}): Promise<void> {
    const git = (args: string[]) => runGit([...NO_HOOKS, '--git-dir', this.store.commonDir, ...args], {cwd: this.store.commonDir, allowFail: true})
    if (existsSync(path.join(dir, '.git'))) {
      // the attempt's own work tree, opened before: taken up again; any other (the repository's
      // own checkout, another branch's) is not the attempt's to edit. Read from its files, not
      // `git worktree list`, which fails while another process adds a work tree
      if (!o.branch || headOfWorktree(dir) === `ref: refs/heads/${o.branch}`) return
      throw new WorktreeError(dir, `it is already a git work tree, not one of ${o.branch}: an attempt needs a folder of its own`)
    }
    // one `git worktree add` or `remove` at a time: git reads every other entry's files while it
    // adds one, and fails on an entry another process is writing ("failed to read .../commondir")
    const r = await this.worktrees(async () => {
      if (!o.branch) return git(['worktree', 'add', '--detach', '-q', dir, o.commit])
      if (await readRef(this.store.commonDir, `refs/heads/${o.branch}`)) return git(['worktree', 'add', '-q', dir, o.branch])
      return git(['worktree', 'add', '-q', '-b', o.branch, dir, o.commit])
    })
    if (r.code !== 0) throw new WorktreeError(dir, r.stderr.trim())
  }

  private async worktrees<T>(fn: () => Promise<T>): Promise<T> {
    const lock = await RefLock.acquire(this.store.commonDir, 'exp/worktrees', {timeoutMs: 120_000})
    try {
      return await fn()
    } finally {
      await lock.release()
    }
  }

  async removeWorktree(dir: string): Promise<void> {
    // no `git worktree prune` here: it would also drop the entry of a work tree another process is adding right now
    await this.worktrees(() => runGit([...NO_HOOKS, '--git-dir', this.store.commonDir, 'worktree', 'remove', '--force', dir], {cwd: this.store.commonDir, allowFail: true}))
    await rm(dir, {recursive: true, force: true})
  }

  async commitWorktree(dir: string, message: string): Promise<string> {
    const env = {GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME ?? 'exp', GIT_AUTHOR_EMAIL: process.env.GIT_AUTHOR_EMAIL ?? 'exp@exp.invalid', GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME ?? 'exp', GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL ?? 'exp@exp.invalid'}
    const refused = (r: {code: number; stderr: string}) => new WorktreeError(dir, r.stderr.trim().split('\n').filter(Boolean).slice(-2).join(' / ') || `git exited ${r.code}`, true)
    // (git pointed at the work tree as git registered it, never through the folder's own .git: commits.ts)
    const at = [...NO_HOOKS, ...workTreeArgs(this.store, dir, true)]
    const add = await runGit([...at, 'add', '-A'], {cwd: dir, allowFail: true})
    if (add.code !== 0) throw refused(add)
    const staged = await runGit([...at, 'diff', '--cached', '--quiet'], {cwd: dir, allowFail: true})
    if (staged.code !== 0) {
      const c = await runGit([...at, '-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '-m', commitText(message)], {cwd: dir, env, allowFail: true})
      if (c.code !== 0) throw refused(c)
    }
    return (await runGit([...at, 'rev-parse', 'HEAD'], {cwd: dir})).stdout.toString().trim()
  }

  async treeOf(commit: string): Promise<string> {
    return (await readCommit(this.store, commit)).tree
  }

  async pathId(commitOrTree: string, p: string): Promise<{oid: string; kind: 'tree' | 'blob'} | undefined> {
    const o = await this.store.reader.read(commitOrTree)
    const root = o.type === 'commit' ? (await readCommit(this.store, commitOrTree)).tree : commitOrTree
    const e = await lookupPath(this.store.reader, root, p)
    return e && e.mode !== '160000' ? {oid: e.oid, kind: e.mode === '40000' ? 'tree' : 'blob'} : undefined
  }

  async entries(tree: string): Promise<{name: string; oid: string; kind: 'tree' | 'blob'}[]> {
    return (await readTree(this.store.reader, tree)).filter(e => e.mode !== '160000').map(e => ({name: e.name, oid: e.oid, kind: e.mode === '40000' ? 'tree' : 'blob'}))
  }

  blame(rev: string, file: string): Promise<BlamedLine[]> {
    return blameFile(this.store, rev, file)
  }
}

/** The HEAD of a linked work tree (`.git` a file naming its git dir), or undefined for anything else. */
function headOfWorktree(dir: string): string | undefined {
  try {
    const dotgit = path.join(dir, '.git')
    if (!lstatSync(dotgit).isFile()) return undefined
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotgit, 'utf8'))
    return m ? readFileSync(path.join(path.resolve(dir, m[1]!.trim()), 'HEAD'), 'utf8').trim() : undefined
  } catch {
    return undefined
  }
}
