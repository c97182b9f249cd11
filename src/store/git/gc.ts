import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {CorruptObjectError, ExpError} from '../../errors/index.js'
import {hasNativeGit, runGit} from '../../git/run.js'
import {RefLock, alive} from '../../git/lock.js'
import type {RepoPaths} from '../../git/repo.js'
import {readRegularSync} from '../../regular-file.js'

export interface GcResult {
  looseBefore: number
  packsBefore: number
  looseAfter: number
  packsAfter: number
  /** temp files and pack keeps left by processes that died (removed) */
  garbage: string[]
}

/** a temp file without an owner we can check is garbage once this old */
const STALE_MS = 60 * 60 * 1000
const HOST = os.hostname()

function countObjects(commonDir: string): {loose: number; packs: number} {
  let loose = 0
  const objects = path.join(commonDir, 'objects')
  for (const d of fs.readdirSync(objects)) if (/^[0-9a-f]{2}$/.test(d)) loose += fs.readdirSync(path.join(objects, d)).filter(f => /^[0-9a-f]{38}$/.test(f)).length
  const packs = fs.existsSync(path.join(objects, 'pack')) ? fs.readdirSync(path.join(objects, 'pack')).filter(f => f.endsWith('.idx')).length : 0
  return {loose, packs}
}

function list(dir: string): string[] {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

/** Is a temp file garbage: its owner (a pid in its name or content) is dead here, or, without one, it is old. */
function stale(file: string, pid: number | undefined): boolean {
  if (pid !== undefined && pid !== process.pid) return !alive(pid)
  try {
    return Date.now() - fs.statSync(file).mtimeMs > STALE_MS
  } catch {
    return false
  }
}

function newValueOrphaned(lock: string, file: string): boolean {
  return fs.existsSync(lock) ? deadOwner(lock) : stale(file, undefined)
}

/** A lock file written by an exp process of this host that is no longer running. */
function deadOwner(file: string): boolean {
  let text: string
  try {
    // (an exp lock is one short line: anything larger, or not a regular file, is not one)
    text = readRegularSync(file, 4096)
  } catch {
    return false
  }
  const m = /^exp pid=(\d+) host=(\S+)/.exec(text)
  return !!m && m[2] === HOST && Number(m[1]) !== process.pid && !alive(Number(m[1]))
}

/**
 * Temp files a killed writer leaves: loose-object and pack temp files (named with the pid of
 * the exp process that wrote them; git's own by age), pack keeps an append holds until its
 * ref moves, locks and lock temp files, and the cache's and seen tips' temp files. Files of live
 * processes are left alone.
 */
export function findGarbage(commonDir: string): string[] {
  const out: string[] = []
  const objects = path.join(commonDir, 'objects')
  for (const d of list(objects)) {
    if (!/^[0-9a-f]{2}$/.test(d)) continue
    for (const f of list(path.join(objects, d))) {
      const m = /^tmp_obj_(?:(\d+)_)?/.exec(f)
      if (m && stale(path.join(objects, d, f), m[1] ? Number(m[1]) : undefined)) out.push(path.join(objects, d, f))
    }
  }
  const packs = path.join(objects, 'pack')
  for (const f of list(packs)) {
    const file = path.join(packs, f)
    const m = /^tmp_(?:pack|idx|keep)_(?:(\d+)_)?/.exec(f)
    if (m && stale(file, m[1] ? Number(m[1]) : undefined)) out.push(file)
    if (f.endsWith('.keep')) {
      let text = ''
      try {
        // (a keep exp writes is one short line; a FIFO or a link to /dev/zero here is not one)
        text = readRegularSync(file, 4096)
      } catch {
        continue
      }
      // only keeps exp wrote (git's and people's keeps are meant to stay)
      const k = /^exp pid=(\d+) host=(\S+):/.exec(text)
      if (k && k[2] === HOST && stale(file, Number(k[1]))) out.push(file)
    }
  }
  const visit = (file: string, e: string, st: fs.Stats): void => {
    // (exp's temp and lock files are regular files: a link, a FIFO or a folder at such a name is none of them)
    if (!st.isFile()) return
    const m = /\.lock~(\d+)~[a-z0-9]+\.lock$/.exec(e) ?? /\.lock\.(\d+)\.[a-z0-9]+\.tmp$/.exec(e) ?? /\.(\d+)\.tmp$/.exec(e)
    if (m && stale(file, Number(m[1]))) out.push(file)
    // the new value of a ref whose lock is gone (its writer died between the two renames) or
    // whose lock's exp owner is dead (killed before the first rename: both are left)
    // (`.lock.new`: the name versions before this one used)
    else if (e.endsWith('~new.lock') && newValueOrphaned(`${file.slice(0, -'~new.lock'.length)}.lock`, file)) out.push(file)
    else if (e.endsWith('.lock.new') && !fs.existsSync(file.slice(0, -'.new'.length)) && stale(file, undefined)) out.push(file)
    // a lock whose exp owner died (the next writer would break it; git commands would fail on it)
    else if (e.endsWith('.lock') && deadOwner(file)) out.push(file)
  }
  // never through a link (one in an attempt's work tree pointing at a home folder had its
  // `*.<pid>.tmp` files removed), and never into the work trees of attempts and evaluations
  // (.git/exp/worktrees): their files are a person's or an agent's, whatever their names
  eachFile(path.join(commonDir, 'refs'), visit)
  eachFile(path.join(commonDir, 'exp'), visit, new Set([path.join(commonDir, 'exp', 'worktrees')]))
  return out
}

/** Every entry below `dir` that is not a folder, with its name and lstat; links are not followed, folders in `skip` not entered. */
function eachFile(dir: string, visit: (file: string, name: string, st: fs.Stats) => void, skip: ReadonlySet<string> = new Set()): void {
  for (const e of list(dir)) {
    const file = path.join(dir, e)
    let st: fs.Stats
    try {
      st = fs.lstatSync(file)
    } catch {
      continue
    }
    if (st.isDirectory()) {
      if (!skip.has(file)) eachFile(file, visit, skip)
    } else visit(file, e, st)
  }
}

/** git's lock files of a fetch are held for the moment it moves the refs: one this old was left by a fetch that was killed */
const FETCH_LOCK_MS = 60 * 1000

/**
 * git's `.lock` files under exp's own tracking refs (refs/exp/remotes/, written only by the
 * fetch of `exp sync`) that a killed sync left: every later fetch failed on them ("cannot lock
 * ref … File exists"). Removed by `exp gc` and by `exp sync` before it fetches.
 */
export function staleFetchLocks(commonDir: string, now = Date.now()): string[] {
  const out: string[] = []
  eachFile(path.join(commonDir, 'refs', 'exp', 'remotes'), (file, e, st) => void (st.isFile() && e.endsWith('.lock') && now - st.mtimeMs > FETCH_LOCK_MS && out.push(file)))
  return out
}

/**
 * The work trees an evaluation of an attempt checks out (`.git/exp/worktrees/eval-…-<pid>`,
 * attempts/evaluate.ts) whose process is gone: a run killed while its evaluator ran left them
 * registered with git, and nothing else removes them.
 */
async function removeDeadEvalWorktrees(commonDir: string): Promise<string[]> {
  const root = path.join(commonDir, 'exp', 'worktrees')
  const dead = list(root).filter(e => {
    const m = /^eval-.+-(\d+)$/.exec(e)
    return m && Number(m[1]) !== process.pid && !alive(Number(m[1]))
  })
  if (!dead.length) return []
  const lock = await RefLock.acquire(commonDir, 'exp/worktrees', {timeoutMs: 120_000})
  try {
    for (const e of dead) {
      await runGit(['--git-dir', commonDir, 'worktree', 'remove', '--force', path.join(root, e)], {cwd: commonDir, allowFail: true})
      fs.rmSync(path.join(root, e), {recursive: true, force: true})
    }
    await runGit(['--git-dir', commonDir, 'worktree', 'prune'], {cwd: commonDir, allowFail: true})
  } finally {
    await lock.release()
  }
  return dead.map(e => path.join(root, e))
}

/**
 * The folders held-out data was unsealed into (`<tmp>/exp-private-<pid>-…`, attempts/
 * private-data.ts) by an exp that was killed (SIGKILL: an interrupt removes its own): the
 * data is in clear in them. Folders named without a pid, by an older exp, go once a day old.
 */
function removeDeadPrivateFolders(): string[] {
  const tmp = os.tmpdir()
  const dead = list(tmp).filter(e => {
    const m = /^exp-private-(?:(\d+)-)?[A-Za-z0-9]{6}$/.exec(e)
    if (!m) return false
    if (m[1]) return Number(m[1]) !== process.pid && !alive(Number(m[1]))
    const st = fs.statSync(path.join(tmp, e), {throwIfNoEntry: false})
    return !!st && Date.now() - st.mtimeMs > 24 * 3600_000
  })
  for (const e of dead) fs.rmSync(path.join(tmp, e), {recursive: true, force: true})
  return dead.map(e => path.join(tmp, e))
}

/** Repository maintenance: remove dead writers' temp files, pack loose objects and small packs into one, keep refs packed. */
export async function gc(repo: RepoPaths, opts: {aggressive?: boolean} = {}): Promise<GcResult> {
  if (!(await hasNativeGit())) throw new ExpError('E_USAGE', 'exp gc needs the git binary (isomorphic-git cannot repack)', {hint: 'install git and run `exp gc` again'})
  const garbage = [...new Set([...findGarbage(repo.commonDir), ...staleFetchLocks(repo.commonDir)])]
  for (const f of garbage) fs.rmSync(f, {force: true})
  garbage.push(...(await removeDeadEvalWorktrees(repo.commonDir)), ...removeDeadPrivateFolders())
  const before = countObjects(repo.commonDir)
  await maintain(repo.commonDir, ['gc', '--quiet', ...(opts.aggressive ? ['--aggressive'] : [])])
  await maintain(repo.commonDir, ['pack-refs', '--all'])
  const after = countObjects(repo.commonDir)
  return {looseBefore: before.loose, packsBefore: before.packs, looseAfter: after.loose, packsAfter: after.packs, garbage: garbage.map(f => (f.startsWith(repo.commonDir + path.sep) ? path.relative(repo.commonDir, f) : f))}
}

/**
 * Run one of git's maintenance commands; what stops it is named. On a damaged repository (a
 * lane ref holding garbage or naming a missing object, a corrupt loose object or pack, a
 * damaged packed-refs) git gc stops with "fatal: bad object …" or "… is corrupt": that was
 * passed through as an unexpected error to report, with no word of what to do. It is the
 * repository's damage, which `exp fsck` lists by lane, ref and record (git gc prunes last: it
 * has removed no object when it stops there).
 */
async function maintain(commonDir: string, args: string[]): Promise<void> {
  const r = await runGit(['--git-dir', commonDir, ...args], {cwd: commonDir, allowFail: true})
  if (r.code === 0) return
  const said = gitSaid(r.stderr)
  const cmd = `git ${args[0]}`
  if (/no space left|disk quota|permission denied|read-only file system|operation not permitted/i.test(r.stderr)) {
    throw new ExpError('E_WRITE', `exp gc could not write to the repository: ${cmd} stopped (${r.code}): ${said}`, {data: {command: cmd, status: r.code}, hint: 'make room on the device, or fix the permissions of the git folder, then run `exp gc` again'})
  }
  throw new CorruptObjectError('repository', `${cmd} stopped (${r.code}): ${said}`, {command: cmd, status: r.code}, `run \`exp fsck\` to see the damage (the lane, ref or object git names); fetch a damaged lane again from a remote that has it (\`exp sync\`), or remove a ref that holds garbage, then run \`exp gc\` again`)
}

/** What git printed, on one line: its fatal lines (else its last lines), each once, at most three. */
function gitSaid(stderr: string): string {
  const lines = [...new Set(stderr.split('\n').map(l => l.trim()).filter(Boolean))]
  const fatal = lines.filter(l => l.startsWith('fatal:') && !/^fatal: failed to run /.test(l))
  const shown = (fatal.length ? fatal : lines.slice(-3)).slice(0, 3)
  return shown.join('; ') || 'no message'
}
