import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {mkdir, readdir, readFile, readlink, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {gitBlobId} from '../records/digest.js'
import {commitText} from '../records/summary.js'
import {ExpError, FileTooLargeError, WorktreeError, refMoved} from '../errors/index.js'
import {FILE_MAX, type BlamedLine, type CommitInfo, type FileWrite, type TreeEntry, type TreeFile, type Workspace} from './port.js'

interface MemCommit {
  tree: Map<string, Buffer>
  treeId: string
  parents: string[]
  message: string
  time: number
  /** paths that are symbolic links (their content is the link's target, as git stores it) */
  links: ReadonlySet<string>
}

const NO_LINKS: ReadonlySet<string> = new Set()

const sha1 = (s: string | Buffer) => createHash('sha1').update(s).digest('hex')

function treeIdOf(files: ReadonlyMap<string, Buffer>, links: ReadonlySet<string> = NO_LINKS): string {
  return sha1([...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, c]) => `${p} ${gitBlobId(c)}${links.has(p) ? ' link' : ''}`).join('\n'))
}

/**
 * The in-memory adapter of the Workspace port: commits are maps of path to bytes, refs a
 * map, ids sha1 of their content (like git's, not equal to them). Linked work trees are real
 * folders on disk (an evaluator needs real files), read back on commit. It passes the same
 * contract suite as the git adapter (test/workspace/contract.ts).
 */
export class MemoryWorkspace implements Workspace {
  readonly root: string | undefined = undefined
  private readonly commits = new Map<string, MemCommit>()
  private readonly refs = new Map<string, string>()
  private readonly trees = new Map<string, Map<string, Buffer>>()
  private readonly worktrees = new Map<string, {branch?: string; commit: string}>()
  private clock = 1_700_000_000

  constructor(private head?: string) {}

  /** A root commit of `files` on `branch` (a test's starting repository). */
  seed(branch: string, files: Record<string, string>, message = 'init'): string {
    const tree = new Map(Object.entries(files).map(([p, c]) => [p, Buffer.from(c)]))
    const oid = this.put(tree, [], message)
    this.refs.set(`refs/heads/${branch}`, oid)
    this.head ??= `refs/heads/${branch}`
    return oid
  }

  private put(tree: Map<string, Buffer>, parents: string[], message: string, links: ReadonlySet<string> = NO_LINKS): string {
    const treeId = treeIdOf(tree, links)
    const time = Math.max(this.clock, ...parents.map(p => this.commits.get(p)?.time ?? 0)) + 1
    this.clock = time
    const oid = sha1(`tree ${treeId}\n${parents.map(p => `parent ${p}\n`).join('')}time ${time}\n\n${message}`)
    this.commits.set(oid, {tree, treeId, parents, message, time, links})
    this.trees.set(treeId, tree)
    return oid
  }

  private get(oid: string): MemCommit {
    const c = this.commits.get(oid)
    if (!c) throw new ExpError('E_NOT_FOUND', `${oid} is not a commit`)
    return c
  }

  async resolve(rev: string): Promise<string | undefined> {
    if (this.commits.has(rev)) return rev
    for (const ref of [rev, `refs/heads/${rev}`, `refs/${rev}`]) if (this.refs.has(ref)) return this.refs.get(ref)
    const m = /^(.+)~(\d+)$/.exec(rev)
    if (m) {
      let oid = await this.resolve(m[1]!)
      for (let i = 0; oid && i < Number(m[2]); i++) oid = this.commits.get(oid)?.parents[0]
      return oid
    }
    const near = [...this.commits.keys()].filter(k => rev.length >= 4 && k.startsWith(rev))
    return near.length === 1 ? near[0] : undefined
  }

  async readRef(ref: string): Promise<string | undefined> {
    return this.refs.get(ref)
  }

  async readCommit(oid: string): Promise<CommitInfo> {
    const c = this.get(oid)
    return {oid, tree: c.treeId, parents: [...c.parents], message: c.message, time: c.time}
  }

  async commitsPresent(oids: readonly string[]): Promise<Set<string>> {
    return new Set(oids.filter(o => this.commits.has(o)))
  }

  async rawCommit(oid: string): Promise<Buffer> {
    const c = this.get(oid)
    return Buffer.from(`tree ${c.treeId}\n${c.parents.map(p => `parent ${p}\n`).join('')}\n${c.message}`)
  }

  async readBlob(oid: string): Promise<Buffer | undefined> {
    for (const c of this.commits.values()) for (const b of c.tree.values()) if (gitBlobId(b) === oid) return b
    return undefined
  }

  async readFile(commit: string, file: string, opts: {max?: number} = {}): Promise<Buffer | undefined> {
    const bytes = this.get(commit).tree.get(file)
    const max = opts.max ?? FILE_MAX
    if (bytes && bytes.length > max) throw new FileTooLargeError(file, commit, bytes.length, max)
    return bytes
  }

  async hasFile(commit: string, file: string): Promise<boolean> {
    return this.get(commit).tree.has(file)
  }

  async listFiles(commitOrTree: string, dir?: string, opts: {max?: number} = {}): Promise<TreeFile[]> {
    const max = opts.max ?? FILE_MAX
    return this.filesUnder(commitOrTree, dir).map(([p, file, content]) => {
      if (content.length > max) throw new FileTooLargeError(file, commitOrTree, content.length, max)
      return {path: p, blob: gitBlobId(content), content}
    })
  }

  async listTree(commitOrTree: string, dir?: string): Promise<TreeEntry[]> {
    return this.filesUnder(commitOrTree, dir).map(([p, , content]) => ({path: p, blob: gitBlobId(content)}))
  }

  /** the files under `dir`, sorted: path below dir, path in the tree, bytes */
  private filesUnder(commitOrTree: string, dir?: string): [string, string, Buffer][] {
    const tree = this.commits.get(commitOrTree)?.tree ?? this.trees.get(commitOrTree)
    if (!tree) throw new ExpError('E_NOT_FOUND', `${commitOrTree} is not a commit or tree`)
    const prefix = dir ? `${dir.replace(/\/$/, '')}/` : ''
    return [...tree.entries()].filter(([p]) => p.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, content]) => [p.slice(prefix.length), p, content])
  }

  async firstParents(tip: string): Promise<CommitInfo[]> {
    const out: CommitInfo[] = []
    for (let oid: string | undefined = tip; oid; oid = this.commits.get(oid)?.parents[0]) out.push(await this.readCommit(oid))
    return out.reverse()
  }

  private ancestors(oid: string): Set<string> {
    const seen = new Set<string>()
    const todo = [oid]
    while (todo.length) {
      const x = todo.pop()!
      if (seen.has(x)) continue
      seen.add(x)
      todo.push(...(this.commits.get(x)?.parents ?? []))
    }
    return seen
  }

  async shallow(): Promise<boolean> {
    return false
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    const mine = this.ancestors(a)
    // breadth first from b: the nearest common ancestor
    const queue = [b]
    const seen = new Set<string>()
    while (queue.length) {
      const x = queue.shift()!
      if (mine.has(x)) return x
      if (seen.has(x)) continue
      seen.add(x)
      queue.push(...(this.commits.get(x)?.parents ?? []))
    }
    return undefined
  }

  async changedPaths(from: string, to: string): Promise<string[]> {
    const {tree: a, links: la} = this.get(from)
    const {tree: b, links: lb} = this.get(to)
    const out = new Set<string>()
    for (const [p, c] of a) if (!b.has(p) || !b.get(p)!.equals(c) || la.has(p) !== lb.has(p)) out.add(p)
    for (const p of b.keys()) if (!a.has(p)) out.add(p)
    return [...out].sort()
  }

  async linkedPaths(commit: string, paths: readonly string[]): Promise<string[]> {
    const {links} = this.get(commit)
    return paths.filter(p => links.has(p))
  }

  async commitFiles(o: {base: string; files: FileWrite[]; message: string; parents?: string[]}): Promise<string> {
    const base = this.get(o.base)
    const tree = new Map(base.tree)
    for (const f of o.files) tree.set(f.path, Buffer.from(f.content))
    // files written here are regular files; the base's other links stay links
    const written = new Set(o.files.map(f => f.path))
    return this.put(tree, o.parents ?? [o.base], commitText(o.message), new Set([...base.links].filter(p => !written.has(p))))
  }

  async moveRef(ref: string, next: string, expected: string | undefined): Promise<void> {
    if (this.refs.get(ref) !== expected) throw refMoved(ref, this.refs.get(ref), expected)
    this.refs.set(ref, next)
  }

  async deleteRef(ref: string, expected: string): Promise<void> {
    const at = this.refs.get(ref)
    if (at !== undefined && at !== expected) throw refMoved(ref, at, expected)
    this.refs.delete(ref)
  }

  checkedOutBranch(): string | undefined {
    return this.head
  }

  async workTreeWith(ref: string): Promise<string | undefined> {
    // (no files: the one work tree is a name)
    return ref === this.head ? '<memory>' : undefined
  }

  /** The tracked files of a work tree whose content differs from its commit (as `git status --untracked-files=no`). */
  async dirtyFiles(dir?: string): Promise<string[]> {
    const w = dir === undefined ? undefined : this.worktrees.get(dir)
    if (!w) return []
    const at = this.get(w.branch ? (this.refs.get(`refs/heads/${w.branch}`) ?? w.commit) : w.commit)
    const {tree} = await readFolder(dir!)
    return [...at.tree].filter(([p, c]) => !tree.get(p)?.equals(c)).map(([p]) => p)
  }

  async treeIsAt(): Promise<boolean> {
    return false
  }

  async updateWorkTree(): Promise<void> {}

  private queue: Promise<unknown> = Promise.resolve()

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }

  async addWorktree(dir: string, o: {commit: string; branch?: string}): Promise<void> {
    if (this.worktrees.has(dir)) return
    if (existsSync(dir) && (await readdir(dir)).length) throw new WorktreeError(dir, 'the folder is not empty')
    const commit = o.branch ? (this.refs.get(`refs/heads/${o.branch}`) ?? o.commit) : o.commit
    if (o.branch && !this.refs.has(`refs/heads/${o.branch}`)) this.refs.set(`refs/heads/${o.branch}`, commit)
    const {tree, links} = this.get(commit)
    for (const [p, c] of tree) {
      await mkdir(path.dirname(path.join(dir, p)), {recursive: true})
      if (links.has(p)) await symlink(c.toString('utf8'), path.join(dir, p))
      else await writeFile(path.join(dir, p), c)
    }
    await mkdir(dir, {recursive: true})
    await writeFile(path.join(dir, '.git'), `memory worktree of ${commit}\n`)
    this.worktrees.set(dir, {...(o.branch ? {branch: o.branch} : {}), commit})
  }

  async removeWorktree(dir: string): Promise<void> {
    this.worktrees.delete(dir)
    await rm(dir, {recursive: true, force: true})
  }

  async commitWorktree(dir: string, message: string): Promise<string> {
    const w = this.worktrees.get(dir)
    if (!w) throw new WorktreeError(dir, 'not a work tree of this workspace')
    const {tree, links} = await readFolder(dir)
    const parent = w.branch ? this.refs.get(`refs/heads/${w.branch}`)! : w.commit
    if (treeIdOf(tree, links) === this.get(parent).treeId) return parent
    const oid = this.put(tree, [parent], commitText(message), links)
    if (w.branch) this.refs.set(`refs/heads/${w.branch}`, oid)
    w.commit = oid
    return oid
  }

  async treeOf(commit: string): Promise<string> {
    return this.get(commit).treeId
  }

  /** The sub-map of a folder, registered as a tree of its own. */
  private subtree(files: ReadonlyMap<string, Buffer>, dir: string): Map<string, Buffer> | undefined {
    const prefix = `${dir.replace(/\/$/, '')}/`
    const sub = new Map([...files].filter(([p]) => p.startsWith(prefix)).map(([p, c]) => [p.slice(prefix.length), c]))
    if (!sub.size) return undefined
    this.trees.set(treeIdOf(sub), sub)
    return sub
  }

  async pathId(commitOrTree: string, p: string): Promise<{oid: string; kind: 'tree' | 'blob'} | undefined> {
    const files = this.commits.get(commitOrTree)?.tree ?? this.trees.get(commitOrTree)
    if (!files) return undefined
    const blob = files.get(p)
    if (blob) return {oid: gitBlobId(blob), kind: 'blob'}
    const sub = this.subtree(files, p)
    return sub ? {oid: treeIdOf(sub), kind: 'tree'} : undefined
  }

  async entries(tree: string): Promise<{name: string; oid: string; kind: 'tree' | 'blob'}[]> {
    const files = this.trees.get(tree)
    if (!files) throw new ExpError('E_NOT_FOUND', `${tree} is not a tree`)
    const out = new Map<string, {name: string; oid: string; kind: 'tree' | 'blob'}>()
    for (const [p, c] of files) {
      const [head, ...rest] = p.split('/')
      if (!rest.length) out.set(head!, {name: head!, oid: gitBlobId(c), kind: 'blob'})
      else if (!out.has(head!)) out.set(head!, {name: head!, oid: treeIdOf(this.subtree(files, head!)!), kind: 'tree'})
    }
    return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : 1))
  }

  /** Each line to the oldest first-parent commit from which the file held it without interruption. */
  async blame(rev: string, file: string): Promise<BlamedLine[]> {
    const tip = (await this.resolve(rev)) ?? rev
    const text = this.get(tip).tree.get(file)?.toString('utf8')
    if (text === undefined) throw new ExpError('E_NOT_FOUND', `${file} is not in ${rev}`)
    const chain = (await this.firstParents(tip)).reverse()
    return text.replace(/\n$/, '').split('\n').map((line, i) => {
      let commit = tip
      for (const c of chain) {
        const lines = this.get(c.oid).tree.get(file)?.toString('utf8').split('\n') ?? []
        if (!lines.includes(line)) break
        commit = c.oid
      }
      // (this blame walks the first-parent line only: the commit is the one that brought the line)
      return {line: i + 1, text: line, commit, original_line: i + 1, via: commit}
    })
  }
}

/** The files of a work tree folder as git would commit them (a link as its target), without its `.git`. */
async function readFolder(dir: string): Promise<{tree: Map<string, Buffer>; links: Set<string>}> {
  const tree = new Map<string, Buffer>()
  const links = new Set<string>()
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const e of await readdir(d, {withFileTypes: true})) {
      if (!rel && e.name === '.git') continue
      const r = rel ? `${rel}/${e.name}` : e.name
      if (e.isDirectory()) await walk(path.join(d, e.name), r)
      else if (e.isFile()) tree.set(r, await readFile(path.join(d, e.name)))
      // a link is committed as git does: its target as the content, never what it points to
      else if (e.isSymbolicLink()) {
        tree.set(r, Buffer.from(await readlink(path.join(d, e.name)), 'utf8'))
        links.add(r)
      }
    }
  }
  await walk(dir, '')
  return {tree, links}
}
