import {spawn} from 'node:child_process'
import {CorruptObjectError} from '../../errors/index.js'
import {ByteSplitter, PIECE_MAX} from './split.js'
import {LOG_AS_WRITTEN, LOG_FORMAT, bufferedGit, entryOid, entryParts} from './log.js'
import {gitEnv} from '../../git/env.js'

/**
 * Every file (blob id) of a commit's tree, by path, from one `git ls-tree -r -z` (what a full read of
 * a lane needs instead of diffing each commit against its parent: in a cumulative lane tree
 * the tip holds every record file).
 */
export async function listTreeNative(gitDir: string, commit: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  await eachTreeFile(gitDir, commit, (p, blob) => {
    out.set(p, blob)
    return true
  })
  return out
}

/**
 * Each file of a commit's tree (path, blob id) as `git ls-tree -r -z` lists it, handed to
 * `take` without keeping a map of them; `take` returning false stops the listing (resolves
 * false). Rejects when git fails.
 */
export function eachTreeFile(gitDir: string, commit: string, take: (path: string, blob: string) => boolean): Promise<boolean> {
  return eachTreeEntry(gitDir, commit, (buf, oid, at, end) => take(buf.toString('utf8', at, end), buf.toString('latin1', oid, at - 1)))
}

/**
 * The same, each file handed over as the bytes git wrote: its blob id is `buf[oid, path - 1)`
 * and its path `buf[path, end)` (a full read of a large lane decodes only what it keeps).
 * `regularOnly`: an entry that is not a regular file (a symbolic link, a submodule) stops the
 * listing as `take` returning false does.
 */
export function eachTreeEntry(gitDir: string, commit: string, take: (buf: Buffer, oid: number, path: number, end: number) => boolean, regularOnly = false): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', '--full-tree', commit], {stdio: ['ignore', 'pipe', 'pipe'], env: gitEnv()})
    // entries are NUL-terminated, parsed from bytes (split.ts)
    const pieces = new ByteSplitter(0)
    let stderr = ''
    let stopped = false
    const entry = (buf: Buffer, from: number, to: number) => {
      // <mode> SP <type> SP <oid> TAB <path>
      if (stopped) return
      const sp = buf.indexOf(0x20, from)
      const tab = buf.indexOf(0x09, sp + 1)
      const blob = !(sp < 0 || sp >= to || tab < 0 || tab > to || buf[sp + 1] !== 0x62 || buf[sp + 2] !== 0x6c || buf[sp + 3] !== 0x6f || buf[sp + 4] !== 0x62 || buf[sp + 5] !== 0x20)
      // (100644 or 100755: `1006` or `1007` and two more digits)
      const regular = blob && sp - from === 6 && buf[from] === 0x31 && buf[from + 1] === 0x30 && buf[from + 2] === 0x30 && (buf[from + 3] === 0x36 || buf[from + 3] === 0x37)
      if (!blob && !regularOnly) return
      if ((regularOnly && !regular) || !take(buf, sp + 6, tab + 1, to)) {
        stopped = true
        child.kill()
      }
    }
    child.stdout.on('data', (d: Buffer) => pieces.feed(d, entry))
    child.stderr.on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => {
      if (stopped) resolve(false)
      else if (code === 0) resolve(true)
      else reject(new CorruptObjectError('tree', `git ls-tree ${commit} failed: ${stderr.trim().split('\n').pop()}`, {commit}))
    })
  })
}

/** A lane commit as a full read needs it: its id, whether it is a merge, and the record its trailers name. */
export interface LeanCommit {
  oid: string
  merge: boolean
  /** the Exp-Record trailer's value (`kind/id`), when there is one */
  record?: string | undefined
  /** the Exp-Lamport trailer's value */
  lamport?: number | undefined
  /** a message this reader does not take apart (a \x01 in it, or one that starts with a trailer): the commit-by-commit read does */
  odd?: boolean
}

/**
 * The commits of a lane, newest first, from `git log --first-parent` without diffs (git
 * streams them as it walks), each reduced where it arrives to its id, whether it has more
 * than one parent and its Exp-Record and Exp-Lamport trailers, read as message.ts reads them
 * (the last line that starts with the key): no message is kept as a string, and no object
 * per commit lives on. `each` gets them in order; resolves true when git finished, false when
 * `each` returned false (git is stopped); rejects when git fails. With `held`, nothing is read
 * before it settles (the caller has other output to take in first).
 */
export function eachLaneCommit(gitDir: string, tip: string, each: (c: LeanCommit) => boolean, held?: Promise<unknown>): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, 'log', ...LOG_AS_WRITTEN, '--first-parent', '--no-renames', LOG_FORMAT, tip], {stdio: ['ignore', 'pipe', 'pipe'], env: bufferedGit()})
    let preamble = true
    let stopped = false
    let stderr = ''
    const give = (c: LeanCommit) => {
      if (stopped) return
      if (!each(c)) {
        stopped = true
        child.kill()
      }
    }
    const entry = (buf: Buffer, from: number, to: number) => {
      if (preamble) {
        preamble = false
        return
      }
      give(leanCommit(buf, from, to))
    }
    // an entry too large to hold (a message of hundreds of MB) is passed over: the
    // commit-by-commit read, which this one falls back to for an odd commit, names it
    const pieces = new ByteSplitter(0, PIECE_MAX, head => give({oid: entryOid(head), merge: false, odd: true}))
    child.stdout.on('data', (d: Buffer) => pieces.feed(d, entry))
    child.stdout.on('end', () => pieces.end(entry))
    if (held) {
      // git starts at once and writes until the pipe is full; its output is read once `held` settles
      child.stdout.pause()
      const resume = () => child.stdout.resume()
      held.then(resume, resume)
    }
    child.stderr.on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => {
      if (stopped) resolve(false)
      else if (code === 0) resolve(true)
      else reject(new CorruptObjectError('lane', `git log ${tip} failed: ${stderr.trim().split('\n').pop()}`))
    })
  })
}

const RECORD_KEY = Buffer.from('\nExp-Record:')
const LAMPORT_KEY = Buffer.from('\nExp-Lamport:')

/** The entry in `buf[from, to)` (log.ts, LOG_FORMAT). */
function leanCommit(buf: Buffer, from: number, to: number): LeanCommit {
  const parts = entryParts(buf, from, to)
  if (!parts) return {oid: buf.toString('latin1', from, Math.min(to, from + 40)), merge: false, odd: true}
  const {a, b, nl, end} = parts
  const oid = buf.toString('latin1', from, a)
  const sp = buf.indexOf(0x20, a + 1)
  const merge = sp >= 0 && sp < b
  // (an encoding named, or a message holding \x01, is refused: verify.ts, recordChange; the
  // commit-by-commit read names it)
  if (nl > b + 1) return {oid, merge, odd: true}
  const x01 = buf.indexOf(1, nl + 1)
  if (x01 >= 0 && x01 < end) return {oid, merge, odd: true}
  if (buf[nl + 1] === 0x45 && buf.toString('latin1', nl + 1, nl + 5) === 'Exp-') return {oid, merge, odd: true}
  // the last line of each key, found in one pass from the end (the trailers end the message)
  let record: string | undefined
  let lamport: number | undefined
  let line = end
  // (down to the message's first byte: the newline before it is the format's, as the \x02 was)
  for (let i = end - 1; i > nl && (record === undefined || lamport === undefined); i--) {
    if (buf[i] !== 0x0a) continue
    if (record === undefined && startsWith(buf, i, line, RECORD_KEY)) record = buf.toString('utf8', i + RECORD_KEY.length, line).trim()
    else if (lamport === undefined && startsWith(buf, i, line, LAMPORT_KEY)) lamport = lamportOf(buf, i + LAMPORT_KEY.length, line)
    line = i
  }
  // (one shape for every commit, no spread: 100,000 of them are made while the records are checked)
  return {oid, merge, record, lamport}
}

/** Whether the line at buf[at, end) (its newline first) starts with `key` (`\nKey:`). */
function startsWith(buf: Buffer, at: number, end: number, key: Buffer): boolean {
  if (end - at < key.length) return false
  for (let k = 1; k < key.length; k++) if (buf[at + k] !== key[k]) return false
  return true
}

/** Exp-Lamport's value in buf[from, to) as a number, as Number() reads the trimmed text (plain digits without making it). */
function lamportOf(buf: Buffer, from: number, to: number): number {
  let a = from
  while (a < to && buf[a] === 0x20) a++
  let n = 0
  for (let i = a; i < to; i++) {
    const d = buf[i]! - 0x30
    if (d < 0 || d > 9 || i - a > 15) return Number(buf.toString('utf8', from, to).trim())
    n = n * 10 + d
  }
  return a < to ? n : Number(buf.toString('utf8', from, to).trim())
}
