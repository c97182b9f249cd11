import {CorruptObjectError} from '../../errors/index.js'

import {hashObject, type ObjectType} from '../../records/object-id.js'

export {hashObject, type ObjectType}

/**
 * The largest commit or tree exp reads. A record commit's message is a subject and a few
 * trailers, and a lane's trees are sharded: nothing exp writes comes near it, and a hostile
 * object of hundreds of MB (a commit message compresses ~1000x in a push) is refused unread.
 */
export const OBJECT_MAX = 16 * 1024 * 1024

/**
 * An object a bulk read did not take because it is larger than the caller's limit (`max` of
 * ObjectReader.read and readMany): a hostile lane can put a blob of any size at a record's path, and
 * reading it whole would take that much memory before the checks refuse it. The cat-file
 * readers skip its bytes without keeping them.
 */
export class ObjectTooLarge extends Error {
  constructor(
    readonly oid: string,
    readonly size: number,
    readonly max: number,
  ) {
    super(`${oid} is ${size} bytes, over the ${max}-byte limit of this read`)
  }
}

export interface TreeEntry {
  mode: string
  name: string
  oid: string
}

/** git's tree order: byte order of names, with tree names compared as if they ended in '/'. */
function sortKey(e: TreeEntry): string {
  return e.mode === '40000' ? `${e.name}/` : e.name
}

export function encodeTree(entries: readonly TreeEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => {
    const x = sortKey(a)
    const y = sortKey(b)
    return x < y ? -1 : x > y ? 1 : 0
  })
  const parts: Buffer[] = []
  for (const e of sorted) {
    parts.push(Buffer.from(`${e.mode} ${e.name}\0`, 'utf8'), Buffer.from(e.oid, 'hex'))
  }
  return Buffer.concat(parts)
}

/**
 * A tree entry's mode as git reads it (canon_mode): by its type bits only, so `120777` or
 * `0120000` is a symbolic link and `040000` a folder, as a checkout makes them — a tree
 * written by hand with such a mode must not pass for a regular file where links or folders
 * are checked (a pull request's tree, an attempt's).
 */
export function canonicalMode(raw: string): string {
  if (raw === '100644' || raw === '40000' || raw === '100755' || raw === '120000' || raw === '160000') return raw
  const mode = /^[0-7]{1,7}$/.test(raw) ? parseInt(raw, 8) : 0o160000
  switch (mode & 0o170000) {
    case 0o100000:
      return mode & 0o100 ? '100755' : '100644'
    case 0o120000:
      return '120000'
    case 0o040000:
      return '40000'
    default:
      return '160000'
  }
}

/** The mode of a tree entry at data[i, sp), canonical: a file's and a folder's without a string made of the bytes. */
function modeAt(data: Buffer, i: number, sp: number): string {
  const n = sp - i
  if (n === 6 && data[i] === 0x31 && data[i + 1] === 0x30 && data[i + 2] === 0x30 && data[i + 3] === 0x36 && data[i + 4] === 0x34 && data[i + 5] === 0x34) return '100644'
  if (n === 5 && data[i] === 0x34 && data[i + 1] === 0x30 && data[i + 2] === 0x30 && data[i + 3] === 0x30 && data[i + 4] === 0x30) return '40000'
  return canonicalMode(data.toString('latin1', i, sp))
}

export function parseTree(data: Buffer, oid = '?'): TreeEntry[] {
  return parseTreeLike(data, oid, undefined).entries
}

/** A parsed tree, with its bytes and where each entry starts in them (parseTreeLike). */
export interface ParsedTree {
  entries: TreeEntry[]
  data: Buffer
  starts: number[]
}

/**
 * parseTree, given the parse of a tree this one is likely a new version of (the same folder at
 * the parent commit): an entry whose bytes are those of the entry at the same place there (or
 * the one after it: one entry removed or changed before) is that entry, not made again. What a
 * near read of a lane does for every commit (log.ts withChanges): a kind's folder of 256
 * entries, one of them new, was 512 strings made a commit. The entries are the same as
 * parseTree's; they are shared with `like`'s and must not be changed.
 */
export function parseTreeLike(data: Buffer, oid: string, like: ParsedTree | undefined): ParsedTree {
  const out: TreeEntry[] = []
  const starts: number[] = []
  // the names so far, made once a name does not sort after the one before it: while they ascend
  // (as git writes them, for the names exp writes), none can be there twice
  let names: Set<string> | undefined
  let prev = ''
  /** where in `like` the next entry is looked for */
  let at = 0
  let i = 0
  const n = data.length
  while (i < n) {
    let same: TreeEntry | undefined
    let end = 0
    if (like) {
      // (compared here, not by Buffer.compare: a call into C++ costs more than the ~30 bytes)
      for (let k = at; k < at + 2 && k < like.entries.length; k++) {
        const s = like.starts[k]!
        const len = (k + 1 < like.starts.length ? like.starts[k + 1]! : like.data.length) - s
        if (i + len > n) continue
        let q = 0
        while (q < len && data[i + q] === like.data[s + q]) q++
        if (q === len) {
          same = like.entries[k]
          at = k + 1
          end = i + len
          break
        }
      }
    }
    let sp = i
    let nul = i
    if (!same) {
      // (found here, not by indexOf: a mode is 5 or 6 bytes, a name a few dozen)
      while (sp < n && data[sp] !== 0x20) sp++
      nul = sp + 1
      while (nul < n && data[nul] !== 0) nul++
      if (sp >= n || nul >= n || nul + 21 > n) throw new CorruptObjectError('tree', `${oid} is truncated`, {oid})
      end = nul + 21
    }
    const name = same ? same.name : data.toString('utf8', sp + 1, nul)
    // what `git fsck` calls an error in a tree, and what readers could each take differently:
    // a name twice (one reader takes the first SKILL.md, another the last, a checkout either),
    // a name that is empty, `.`, `..`, `.git` or holds a `/` (an entry of `like` passed these)
    if (!(name > prev) || names) {
      names ??= new Set(out.map(e => e.name))
      if (names.has(name)) throw new CorruptObjectError('tree', `${oid} holds ${JSON.stringify(name)} twice (git fsck: duplicateEntries)`, {oid})
      names.add(name)
    }
    prev = name
    if (!same) {
      if (name === '' || name === '.' || name === '..' || name.toLowerCase() === '.git' || name.includes('/')) throw new CorruptObjectError('tree', `${oid} holds an entry named ${JSON.stringify(name)}, which no git tree may (git fsck)`, {oid})
      same = {mode: modeAt(data, i, sp), name, oid: data.toString('hex', nul + 1, end)}
    }
    out.push(same)
    starts.push(i)
    i = end
  }
  return {entries: out, data, starts}
}

export interface Signature {
  name: string
  email: string
  /** seconds since the epoch */
  time: number
}

export interface CommitData {
  tree: string
  parents: string[]
  author: Signature
  committer: Signature
  message: string
  /** an SSH signature of the commit without this header (git's gpgsig) */
  gpgsig?: string
}

function sig(s: Signature): string {
  return `${s.name.replace(/[<>\n]/g, '')} <${s.email.replace(/[<>\n]/g, '')}> ${s.time} +0000`
}

export function encodeCommit(c: CommitData): Buffer {
  const head = [`tree ${c.tree}`, ...c.parents.map(p => `parent ${p}`), `author ${sig(c.author)}`, `committer ${sig(c.committer)}`]
  if (c.gpgsig) head.push(`gpgsig ${c.gpgsig.split('\n').join('\n ')}`)
  return Buffer.from(`${head.join('\n')}\n\n${c.message}`, 'utf8')
}

/**
 * A commit's tree, parents, message and `encoding` header, as git reads them
 * (parse_commit_buffer): the tree is the first line, the parents the `parent` lines right
 * after it. Other `tree` or `parent` lines further down are headers git passes over: read as
 * well, a commit git log shows with one parent was a merge here, and its tree another.
 */
export function parseCommit(data: Buffer, oid = '?'): {tree: string; parents: string[]; message: string; encoding?: string} {
  const text = data.toString('utf8')
  const split = text.indexOf('\n\n')
  if (split < 0 || !text.startsWith('tree ')) throw new CorruptObjectError('commit', `${oid} has no header`, {oid})
  const lines = text.slice(0, split).split('\n')
  const tree = lines[0]!.slice(5)
  const parents: string[] = []
  let i = 1
  for (; i < lines.length && lines[i]!.startsWith('parent '); i++) parents.push(lines[i]!.slice(7))
  const encoding = lines.find((l, k) => k >= i && l.startsWith('encoding '))?.slice(9)
  return {tree, parents, message: text.slice(split + 2), ...(encoding !== undefined ? {encoding} : {})}
}
