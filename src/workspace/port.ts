/**
 * The Workspace port: the files of the research repository at any revision, its branches,
 * and the few writes the loop makes to them (proposal and attempt commits, promotion
 * merges under compare-and-swap). The loop, the gate, the trust checks and the reports
 * speak to this port, never to git directly. Adapters: git (`git.ts`), memory (tests).
 */
import type {BlamedLine} from './history.js'

export type {BlamedLine} from './history.js'

/** The largest file Workspace.readFile reads unless its caller allows more: 16 MiB. */
export const FILE_MAX = 16 * 1024 * 1024

export interface FileWrite {
  path: string
  content: Buffer
}

export interface CommitInfo {
  oid: string
  tree: string
  parents: string[]
  message: string
  /** committer time, seconds since the epoch */
  time: number
}

export interface TreeEntry {
  /** path relative to the tree it was listed from */
  path: string
  blob: string
}

export interface TreeFile extends TreeEntry {
  content: Buffer
}

export interface Workspace {
  /** the work tree's root folder (undefined: a bare repository) */
  readonly root: string | undefined
  /** a commit id for a branch, ref, `REV~n`, abbreviated id...; undefined when there is none */
  resolve(rev: string): Promise<string | undefined>
  readRef(ref: string): Promise<string | undefined>
  readCommit(oid: string): Promise<CommitInfo>
  /**
   * which of `oids` are commits this repository holds (absent ones, and objects of other
   * types, are not in the set): one question for many, where asking readCommit of each
   * costs a round trip per id (the trust checks ask of every accepted proposal's commits)
   */
  commitsPresent(oids: readonly string[]): Promise<Set<string>>
  /** the commit object's bytes (what a signature covers) */
  rawCommit(oid: string): Promise<Buffer>
  /** a blob's bytes by id; undefined when the repository does not have it */
  readBlob(oid: string): Promise<Buffer | undefined>
  /**
   * a file's bytes at a commit; undefined when the path is absent or a folder. A file over
   * `max` bytes (default FILE_MAX) is refused unread with FileTooLargeError: a pull request
   * or an attempt can commit a file of any size, and reading it whole would cost that much
   * memory before anything judged it.
   */
  readFile(commit: string, path: string, opts?: {max?: number}): Promise<Buffer | undefined>
  /** whether readFile finds a file at `path` in a commit (a folder or a submodule is none); nothing is read */
  hasFile(commit: string, path: string): Promise<boolean>
  /** every file under `dir` (default: the whole tree) of a commit, or of a tree id, with its blob id: no file is read */
  listTree(commitOrTree: string, dir?: string): Promise<TreeEntry[]>
  /**
   * the same files with their bytes, for a small folder (scenarios, contracts); a file over
   * `max` bytes (default FILE_MAX) is refused with FileTooLargeError. A whole tree may hold
   * data sets: list it with listTree and read what is needed.
   */
  listFiles(commitOrTree: string, dir?: string, opts?: {max?: number}): Promise<TreeFile[]>
  /** the first-parent line of `tip`, oldest first */
  firstParents(tip: string): Promise<CommitInfo[]>
  mergeBase(a: string, b: string): Promise<string | undefined>
  /** whether this clone's history is cut short (a `--depth` clone, actions/checkout's default): a merge base may then be missing */
  shallow(): Promise<boolean>
  /** paths changed between two commits; a rename is a deletion plus an addition (no rename detection) */
  changedPaths(from: string, to: string): Promise<string[]>
  /** which of `paths` are, at `commit`, not regular files: symbolic links or submodules (what a pull request or an attempt may not add) */
  linkedPaths(commit: string, paths: readonly string[]): Promise<string[]>
  /** a commit of `files` written over `base`'s tree; no ref moves */
  commitFiles(o: {base: string; files: FileWrite[]; message: string; parents?: string[]}): Promise<string>
  /** move a ref from `expected` to `next`, or fail (E_REF_MOVED) when it is elsewhere */
  moveRef(ref: string, next: string, expected: string | undefined): Promise<void>
  /**
   * delete a ref while it is at `expected`, atomically (git's `update-ref -d REF OLD`), or fail
   * (E_CONFLICT) when it is elsewhere; a ref that is gone already is no error. Never a ref
   * regardless of its value: a branch someone committed to since is theirs.
   */
  deleteRef(ref: string, expected: string): Promise<void>
  /** the branch checked out in the work tree (refs/heads/...), if any */
  checkedOutBranch(): string | undefined
  /**
   * the work tree that has `ref` checked out — this one or another of the repository's
   * (`git worktree add`) — as the folder to pass to dirtyFiles and updateWorkTree; undefined
   * when none has (moving the ref then touches no files)
   */
  workTreeWith(ref: string): Promise<string | undefined>
  /** tracked files with uncommitted changes in a work tree (default: this one) */
  dirtyFiles(dir?: string): Promise<string[]>
  /** whether the index and the tracked files of a work tree (default: this one) are exactly `commit`'s tree */
  treeIsAt(commit: string, dir?: string): Promise<boolean>
  /**
   * bring index and work tree (default: this one) from one commit to another (after a ref
   * moved under them); WorkTreeBehindError when a tracked file changed meanwhile (the ref
   * stays where it is). With dryRun (before moving the ref), E_DIRTY_TREE when it would
   * fail, and nothing changes.
   */
  updateWorkTree(from: string, to: string, opts?: {dryRun?: boolean; dir?: string}): Promise<void>
  /** run `fn` while no other exp process checks or moves the work tree (a promotion's dirty check, or its ref move and work tree update) */
  exclusive<T>(fn: () => Promise<T>): Promise<T>
  /** a linked work tree at `dir`: on `branch` (created at `commit` when missing), or detached at `commit` */
  addWorktree(dir: string, o: {commit: string; branch?: string}): Promise<void>
  /** remove a linked work tree (its branch stays) */
  removeWorktree(dir: string): Promise<void>
  /** commit everything changed in a linked work tree onto its branch (nothing changed: the current commit) */
  commitWorktree(dir: string, message: string): Promise<string>
  /** the tree id of a commit */
  treeOf(commit: string): Promise<string>
  /** the object at a path of a commit or tree (a folder is a tree), undefined when absent */
  pathId(commitOrTree: string, path: string): Promise<{oid: string; kind: 'tree' | 'blob'} | undefined>
  /** the entries of one folder (a tree id), without their content */
  entries(tree: string): Promise<{name: string; oid: string; kind: 'tree' | 'blob'}[]>
  /** which commit last changed each line of a file at a revision (git blame) */
  blame(rev: string, file: string): Promise<BlamedLine[]>
}
