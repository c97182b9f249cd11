import {OBJECT_MAX, parseCommit, type ParsedTree, type TreeEntry} from './objects.js'
import type {ObjectReader} from './reader.js'
import {readTree, readTreeOnce} from './tree.js'
import {spawn} from 'node:child_process'
import {CorruptObjectError} from '../../errors/index.js'
import type {StoreProblemCode} from '../problems.js'
import type {RecordTrailers} from './message.js'
import {ByteSplitter, PIECE_MAX} from './split.js'
import {gitEnv} from '../../git/env.js'

/**
 * What git log prints whatever the user's config says: a root commit's diff (`log.showRoot
 * = false` left a lane's first record commit with no change, named a problem), no signature
 * checks (`log.showSignature`: a run of ssh-keygen or gpg a commit, and its lines in the
 * output), messages as they are (`i18n.logOutputEncoding` re-coded them), no colour, and
 * every submodule entry a commit changes (`diff.ignoreSubmodules=all` hid a gitlink a record
 * commit added beside its record).
 */
export const LOG_AS_WRITTEN: readonly string[] = ['--root', '--no-show-signature', '--encoding=UTF-8', '--no-color', '--ignore-submodules=none']

/**
 * The environment of a git whose output is read to its end: GIT_FLUSH=0 has git buffer its
 * output fully. Into a pipe, `git log` otherwise flushes after every commit — one write per
 * commit, and as many wake-ups here (100,000 commits: 1.2 s and ~1.8 s of CPU between git and
 * this process, against 0.55 s and 0.6 s buffered).
 */
export function bufferedGit(): NodeJS.ProcessEnv {
  return gitEnv({GIT_FLUSH: '0'})
}

export interface Change {
  status: 'A' | 'M' | 'D'
  path: string
  blob: string
  /** the file's mode as git writes it (100644, 100755, 120000 a symbolic link, 160000 a submodule): the new one, or the old one of a deletion */
  mode?: string
}

/** One commit of a lane with what it changed relative to its first parent. */
export interface LaneCommit {
  oid: string
  parents: string[]
  message: string
  changes: Change[]
  /** what a reader already found wrong with it (reported instead of its record) */
  problem?: {code: StoreProblemCode; message: string}
  /** its Exp-* trailers, once parsed (message.ts trailersOf) */
  trailers?: RecordTrailers
  /** the encoding its `encoding` header names (exp writes none: git log would re-code the message, cat-file does not) */
  encoding?: string
}

/** Reads a tree by its id; `at`: its path (a reader may reuse what it read at that path before: parseTreeLike). */
export type TreeRead = (oid: string, at: string) => Promise<TreeEntry[]>

/** What changed between two trees, descending only into subtrees whose ids differ. */
export async function diffTrees(reader: ObjectReader, from: string | undefined, to: string | undefined, prefix = '', read: TreeRead = oid => readTree(reader, oid)): Promise<Change[]> {
  if (from === to) return []
  const b = to ? await read(to, prefix) : []
  const a = from ? await read(from, prefix) : []
  const out: Change[] = []
  const one = async (x: TreeEntry | undefined, y: TreeEntry | undefined, name: string): Promise<void> => {
    const path = prefix ? `${prefix}/${name}` : name
    // (a mode changed on the same bytes is a change, as git log --raw shows it)
    if (x && y && x.oid === y.oid && x.mode === y.mode) return
    const xt = x?.mode === '40000'
    const yt = y?.mode === '40000'
    if (xt || yt) {
      out.push(...(await diffTrees(reader, xt ? x!.oid : undefined, yt ? y!.oid : undefined, path, read)))
      if (x && !xt) out.push({status: 'D', path, blob: x.oid, mode: x.mode})
      if (y && !yt) out.push({status: 'A', path, blob: y.oid, mode: y.mode})
    } else if (x && y) out.push({status: 'M', path, blob: y.oid, mode: y.mode})
    else if (x) out.push({status: 'D', path, blob: x.oid, mode: x.mode})
    else out.push({status: 'A', path, blob: y!.oid, mode: y!.mode})
  }
  if (ascending(a) && ascending(b)) {
    // each list sorted and each name once (as git writes trees of the names exp writes): a merge
    // of the two visits their names in the order of the sorted union below, without two maps, a
    // set and a sort for every tree of every commit (a near read of exp run's batches: ~0.1 s a
    // thousand commits, most of them in the 256 entries of a kind's folder)
    let i = 0
    let j = 0
    while (i < a.length || j < b.length) {
      const x = a[i]
      const y = b[j]
      if (x && (!y || x.name < y.name)) await one(x, undefined, a[i++]!.name)
      else if (y && (!x || y.name < x.name)) await one(undefined, y, b[j++]!.name)
      else {
        i++
        j++
        // (the same entry in both, most of them: passed over without a call)
        if (x!.oid !== y!.oid || x!.mode !== y!.mode) await one(x, y, x!.name)
      }
    }
    return out
  }
  const am = new Map(a.map(e => [e.name, e]))
  const bm = new Map(b.map(e => [e.name, e]))
  for (const name of [...new Set([...am.keys(), ...bm.keys()])].sort()) await one(am.get(name), bm.get(name), name)
  return out
}

/** Whether each entry's name sorts after the one before it (UTF-16 order, as Array.prototype.sort). */
function ascending(es: readonly TreeEntry[]): boolean {
  for (let i = 1; i < es.length; i++) if (!(es[i - 1]!.name < es[i]!.name)) return false
  return true
}

/** Commits of a lane from `stop` (exclusive) to `tip`, oldest first, through isomorphic-git objects. */
export async function laneCommitsIso(reader: ObjectReader, tip: string, stop?: string): Promise<LaneCommit[]> {
  const walked = await firstParents(reader, tip, stop, Infinity)
  if (stop && walked.end !== stop) throw new CorruptObjectError('lane', `${stop} is not an ancestor of ${tip}`)
  return await withChanges(reader, walked.commits)
}

// up to this many commits, reading them through cat-file costs less than starting git log (a
// process of 50 MB: 4 commits 1.8 ms against 17 ms, 64 13 ms against 21 ms, 128 60 ms against
// 20 ms; starting git costs more the larger this process is); a walk that finds no stop wastes
// at most this many reads of a commit
export const NEAR_COMMITS = 64

/**
 * The last commits an append keeps in memory (append.ts, with their trees): a near read walks
 * these without counting them against NEAR_COMMITS, as they cost no request at all. A batch of
 * `exp run` is up to 64 episodes of two records; with 64, every batch's read back started
 * git log (a fork of a process of ~350 MB, ~17 ms, 81 times in a run of 5,400 episodes).
 */
export const NEAR_WRITTEN = 256

/**
 * The commits from `stop` (exclusive; undefined: from the root) to `tip` when `stop` is at
 * most `max` first parents behind `tip`, oldest first, read through `reader`; undefined when
 * it is not (further back,
 * not an ancestor, or an object that cannot be read: the caller reads the lane as it would
 * have without this). What a process that has just appended a few records to a lane reads
 * again: a few requests to the running `git cat-file` instead of starting `git log`
 * (`exp evolve -n 40`: ~200 reads, each a fork of a process of a few hundred MB).
 */
export async function nearLaneCommits(reader: ObjectReader, tip: string, stop: string | undefined, max: number): Promise<LaneCommit[] | undefined> {
  try {
    const walked = await firstParents(reader, tip, stop, max)
    return walked.end === stop ? await withChanges(reader, walked.commits) : undefined
  } catch {
    return undefined
  }
}

interface Walked {
  /** newest first, with each one's tree */
  commits: {oid: string; parents: string[]; message: string; tree: string; encoding?: string}[]
  /** where the walk ended: `stop`, undefined (a root commit), or the commit it did not read (`max` reached) */
  end: string | undefined
}

async function firstParents(reader: ObjectReader, tip: string, stop: string | undefined, max: number): Promise<Walked> {
  const commits: Walked['commits'] = []
  let oid: string | undefined = tip
  // (only commits not held in memory count: reader.remembers)
  let asked = 0
  while (oid && oid !== stop) {
    if (!reader.remembers?.(oid) && asked++ >= max) break
    const o = await reader.read(oid, OBJECT_MAX)
    if (o.type !== 'commit') throw new CorruptObjectError('commit', `${oid} is a ${o.type}`, {oid})
    const c = parseCommit(o.data, oid)
    commits.push({oid, parents: c.parents, message: c.message, tree: c.tree, ...(c.encoding !== undefined ? {encoding: c.encoding} : {})})
    oid = c.parents[0]
  }
  return {commits, end: oid}
}

/**
 * The walked commits, oldest first, each with what it changed relative to its first parent.
 * The last tree read at each path is kept (not in the process-wide cache: a walk of thousands
 * of commits would fill it with every version of trees of hundreds of entries each, exp evolve
 * -n 40: 270 MB peak RSS became 470 MB): the same tree is not read again, and the next version
 * of it, at the parent commit, is parsed against it (parseTreeLike). A commit of one kind's
 * record changes that kind's folder and none of the others: kept for the last commit's diff
 * only, the folder of the kind of every other commit was read again, and parsed whole.
 */
async function withChanges(reader: ObjectReader, commits: Walked['commits']): Promise<LaneCommit[]> {
  const last = new Map<string, {oid: string; tree: ParsedTree}>()
  const read: TreeRead = async (oid, at) => {
    const was = last.get(at)
    if (was?.oid === oid) return was.tree.entries
    const tree = await readTreeOnce(reader, oid, was?.tree)
    last.set(at, {oid, tree})
    return tree.entries
  }
  const out: LaneCommit[] = []
  for (let i = 0; i < commits.length; i++) {
    const c = commits[i]!
    const parent = c.parents[0]
    // the parent's tree: the next one walked, or read (the commit the walk stopped at)
    const parentTree = !parent ? undefined : commits[i + 1]?.oid === parent ? commits[i + 1]!.tree : parseCommit((await reader.read(parent, OBJECT_MAX)).data, parent).tree
    out.push({oid: c.oid, parents: c.parents, message: c.message, changes: await diffTrees(reader, parentTree, c.tree, '', read), ...(c.encoding !== undefined ? {encoding: c.encoding} : {})})
  }
  return out.reverse()
}

/** The same through one `git log --raw` (native fast path). */
export async function laneCommitsNative(gitDir: string, tip: string, stop?: string): Promise<LaneCommit[]> {
  const out: LaneCommit[] = []
  for await (const chunk of laneCommitChunksNative(gitDir, tip, stop, 4096)) out.push(...chunk)
  return out
}

/**
 * Stream a lane's commits, oldest first (or newest first), in chunks, parsing `git log --raw` output as it
 * arrives: a 100,000-record lane never sits in memory as one string. `git log` runs ahead of
 * the consumer by up to `ahead` parsed chunks (its output is read whenever the event loop
 * turns, not only when a chunk is asked for), so the walk of history overlaps with the
 * reading and checking of the records already listed; then its output is paused.
 */
export async function* laneCommitChunksNative(gitDir: string, tip: string, stop: string | undefined, size: number, ahead = 2, raw = true, oldestFirst = true): AsyncGenerator<LaneCommit[]> {
  // without --raw git does not diff each commit against its parent (most of the walk's cost):
  // a full read takes the files from the tip's tree instead (lane-read.ts); newest first, git
  // streams commits as it walks instead of after the whole walk (--reverse has to wait)
  const args = ['--git-dir', gitDir, 'log', ...LOG_AS_WRITTEN, '--first-parent', ...(oldestFirst ? ['--reverse'] : []), '--no-renames', ...(raw ? ['--raw', '--no-abbrev'] : []), LOG_FORMAT, tip]
  if (stop) args.push(`^${stop}`)
  const child = spawn('git', args, {stdio: ['ignore', 'pipe', 'pipe'], env: bufferedGit()})
  let stderr = ''
  child.stderr.on('data', d => (stderr += d))
  const closed = new Promise<number>(resolve => child.on('close', code => resolve(code ?? 1)))
  const ready: LaneCommit[][] = []
  let batch: LaneCommit[] = []
  // entries start at NUL, the one byte git never prints in %B (it cuts a message there), %H or
  // %P, nor in --raw's lines (it quotes control bytes in paths): split on it, each entry parsed
  // whole from bytes (split.ts); what comes before the first one is not an entry (none with
  // this format). (On \x01, as before, a message holding one was cut in two, and its second
  // piece could spell out a commit of its own: an id, parents and trailers of its choosing.)
  let preamble = true
  const entry = (buf: Buffer, from: number, to: number) => {
    if (preamble) preamble = false
    else push(parseLogEntry(buf, from, to))
  }
  // an entry too large to be a record commit (a message of hundreds of MB) is named, not held
  const pieces = new ByteSplitter(0, PIECE_MAX, (head, size) => push(oversized(head, size)))
  let ended = false
  let failure: Error | undefined
  let wake: (() => void) | undefined
  const notify = () => {
    const w = wake
    wake = undefined
    w?.()
  }
  const push = (c: LaneCommit) => {
    batch.push(c)
    if (batch.length >= size) {
      ready.push(batch)
      batch = []
    }
  }
  const out = child.stdout
  out.on('data', (data: Buffer) => {
    try {
      pieces.feed(data, entry)
      if (ready.length >= ahead) out.pause()
    } catch (e) {
      failure = e as Error
      out.destroy()
    } finally {
      notify()
    }
  })
  out.on('end', () => {
    try {
      pieces.end((buf, from, to) => (preamble ? undefined : batch.push(parseLogEntry(buf, from, to))))
      if (batch.length) ready.push(batch)
    } catch (e) {
      failure = e as Error
    }
    ended = true
    notify()
  })
  out.on('error', e => {
    failure ??= e
    ended = true
    notify()
  })
  void closed.then(() => {
    ended = true
    notify()
  })
  let finished = false
  try {
    for (;;) {
      if (failure) throw failure
      const chunk = ready.shift()
      if (chunk) {
        if (ready.length < ahead) out.resume()
        yield chunk
        continue
      }
      if (ended) break
      await new Promise<void>(resolve => (wake = resolve))
    }
    finished = true
  } finally {
    // stopped early (or failed): git log is not needed any more; at the end it exits itself,
    // and its exit status must be seen, not hidden by a kill
    if (!finished && child.exitCode === null) child.kill()
  }
  const code = await closed
  if (code !== 0 && code !== null && !child.killed) throw new CorruptObjectError('lane', `git log ${tip} failed: ${stderr.trim().split('\n').pop()}`)
}

/** The commit id at the head of a log entry (`%H \x02 …`), from as much of it as was kept. */
export function entryOid(head: Buffer): string {
  const a = head.indexOf(2)
  return head.toString('latin1', 0, a > 0 ? Math.min(a, 64) : Math.min(head.length, 40))
}

/** A log entry over PIECE_MAX bytes: its commit, from the entry's head, with the problem. */
function oversized(head: Buffer, size: number): LaneCommit {
  return {oid: entryOid(head), parents: [], message: '', changes: [], problem: {code: 'commit-message', message: `the commit is ${size} bytes in git log (message and changes), over the ${PIECE_MAX} bytes a record commit could need: not read`}}
}

const UNREADABLE = 'git log gave this commit in a form exp cannot read (its output cut short): not read'

/**
 * The format of git log's entries for a lane's readers (this one and tree-list.ts,
 * eachLaneCommit): each starts at NUL (see laneCommitChunksNative), then `%H \x02 %P \x02 %e \n
 * %B \x03` and, with --raw, the changes.
 */
export const LOG_FORMAT = '--format=%x00%H%x02%P%x02%e%n%B%x03'

/**
 * Where the parts of the entry in `buf[from, to)` (LOG_FORMAT, the NUL before it cut off)
 * end: the \x02 after %H (`a`) and after %P (`b`), the newline after %e (`nl`), the \x03 after
 * %B (`end`). %H and %P are hex, so the first two \x02 are the format's; %e, the `encoding`
 * header, is a line of the commit's own bytes, so it ends at the first newline; the raw lines
 * after %B quote control bytes, so the last \x03 is the format's. Undefined when the entry is
 * not of that shape (git's output cut short).
 */
export function entryParts(buf: Buffer, from: number, to: number): {a: number; b: number; nl: number; end: number} | undefined {
  const a = buf.indexOf(2, from)
  const b = a >= 0 && a < to ? buf.indexOf(2, a + 1) : -1
  const nl = b >= 0 && b < to ? buf.indexOf(0x0a, b + 1) : -1
  const end = nl >= 0 && nl < to ? buf.lastIndexOf(3, to - 1) : -1
  return end > nl ? {a, b, nl, end} : undefined
}

/** The entry in `buf[from, to)` (LOG_FORMAT) and, with --raw, the changes. */
function parseLogEntry(buf: Buffer, from: number, to: number): LaneCommit {
  const parts = entryParts(buf, from, to)
  if (!parts) {
    const a = buf.indexOf(2, from)
    const oid = buf.toString('latin1', from, a >= from && a < to ? a : Math.min(to, from + 40))
    return {oid, parents: [], message: '', changes: [], problem: {code: 'commit-message', message: UNREADABLE}}
  }
  const {a, b, nl, end} = parts
  const oid = buf.toString('latin1', from, a)
  const parents = buf.toString('latin1', a + 1, b).split(' ').filter(Boolean)
  const message = buf.toString('utf8', nl + 1, end)
  const changes: Change[] = []
  if (end + 1 < to) {
    for (const line of buf.toString('utf8', end + 1, to).split('\n')) {
      if (line[0] !== ':') continue
      // :<srcmode> <dstmode> <srcoid> <dstoid> <status>\t<path>
      const tab = line.indexOf('\t')
      const f = line.slice(1, tab).split(' ')
      // (a type change, `T`, is the modification of a path, as the tree diff above reads it)
      const status = (f[4]![0] === 'T' ? 'M' : f[4]![0]) as Change['status']
      changes.push({status, path: unquote(line.slice(tab + 1)), blob: status === 'D' ? f[2]! : f[3]!, mode: status === 'D' ? f[0]! : f[1]!})
    }
  }
  return nl > b + 1 ? {oid, parents, message, changes, encoding: buf.toString('utf8', b + 1, nl)} : {oid, parents, message, changes}
}

/** the byte of each one-letter escape git's C quoting writes (quote.c, cq_must_quote) */
const ESCAPES: Record<string, number> = {a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 0x22, '\\': 0x5c}

/**
 * A path as `git log --raw` prints it: as it is, or C-quoted — `"…"` with `\t`, `\n`, `\"`,
 * `\\` and the like, and three octal digits for any other byte (every byte over 0x7f, with
 * core.quotePath at its default) — its bytes read as UTF-8. (It was read as JSON, which has
 * no octal escapes: one file with a non-ASCII name made its whole lane unreadable through git
 * log, and readable through cat-file.) A quoting that is not git's is left as it is: a path no
 * record has, named by the checks of the commit.
 */
export function unquote(p: string): string {
  if (p.length < 2 || !p.startsWith('"') || !p.endsWith('"')) return p
  const out: number[] = []
  for (let i = 1; i < p.length - 1; i++) {
    const c = p[i]!
    if (c !== '\\') {
      for (const b of Buffer.from(c, 'utf8')) out.push(b)
      continue
    }
    const e = p[++i]
    if (e !== undefined && e in ESCAPES) out.push(ESCAPES[e]!)
    else if (e !== undefined && /^[0-3][0-7]{2}$/.test(p.slice(i, i + 3))) {
      out.push(parseInt(p.slice(i, i + 3), 8))
      i += 2
    } else return p
  }
  return Buffer.from(out).toString('utf8')
}
