import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {LockedError, ExpError} from '../errors/index.js'
import {readRef} from './refs.js'

export interface LockOptions {
  /** how long to wait for a live writer before failing (ms) */
  timeoutMs?: number
  /** a lock without a live owner we can check is considered stale after this age (ms) */
  staleMs?: number
}

const DEFAULTS = {timeoutMs: 30_000, staleMs: 120_000}

/**
 * The options of one lock, a default for each one not given. (Spread over the defaults, an
 * option passed as undefined replaced its default: every append, which passes its own
 * lockTimeoutMs through, waited forever for a live writer that held the lock.)
 */
export function lockOptions(options: LockOptions): Required<LockOptions> {
  return {timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs, staleMs: options.staleMs ?? DEFAULTS.staleMs}
}
const HOST = os.hostname()

interface Owner {
  pid?: number
  host?: string
  raw: string
}

function parseOwner(text: string): Owner {
  const m = /^exp pid=(\d+) host=(\S+)/.exec(text)
  return m ? {pid: Number(m[1]), host: m[2], raw: text.trim()} : {raw: text.trim()}
}

/** The file a ref's new value is written to before it is renamed over the ref. */
export function newValuePath(commonDir: string, ref: string): string {
  return path.join(commonDir, `${ref}~new.lock`)
}

/** Whether a process of this host is running (EPERM: it is, under another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function describe(o: Owner): string {
  return o.pid ? `process ${o.pid} on ${o.host}` : o.raw ? `another git process (${o.raw.slice(0, 40)})` : 'another git process'
}

/**
 * Waits for a lock file to go away: an inotify watch on its folder wakes the waiter as soon
 * as the holder renames or removes it, with a timed poll as the fallback (no busy polling
 * that would starve the holder of CPU).
 */
class LockWaiter {
  private watcher: fs.FSWatcher | undefined
  private wake: (() => void) | undefined
  private fired = false

  constructor(file: string) {
    const name = path.basename(file)
    try {
      this.watcher = fs.watch(path.dirname(file), {persistent: false}, (ev, f) => {
        // only creations/removals/renames matter; the holder's writes into the lock do not
        if (ev === 'rename' && (f === null || f === name)) {
          this.fired = true
          this.wake?.()
        }
      })
      this.watcher.on('error', () => this.close())
    } catch {
      this.watcher = undefined
    }
  }

  wait(maxMs: number): Promise<void> {
    if (this.fired) {
      this.fired = false
      return Promise.resolve()
    }
    const ms = this.watcher ? maxMs : Math.min(maxMs, 2 + Math.random() * 8)
    return new Promise(resolve => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.wake = () => {
        this.fired = false
        this.wake = undefined
        done()
      }
    })
  }

  close(): void {
    this.watcher?.close()
    this.watcher = undefined
    this.wake = undefined
  }
}

/**
 * git's lockfile protocol for one ref: `<ref>.lock` is created exclusively (native git uses
 * the same file, so exp and git interlock), the old value is compared under the lock, and the
 * new value is renamed over the ref before the lock is removed.
 * A lock whose owner died (same host, pid gone) or that is older than staleMs is broken
 * under a second `.lock~break.lock` lock, so two waiters never both break it.
 *
 * Every file this protocol makes beside a ref ends in `.lock` and holds a `~` (which no ref
 * name may): git skips such files when it lists refs, so a `git pack-refs --all` running at
 * the same time never packs one as a ref (a `<ref>.lock.new` was once packed as a lane).
 */
export class RefLock {
  private done = false
  private constructor(
    readonly commonDir: string,
    readonly ref: string,
    private readonly ino: number,
    /** ref value when the lock was taken (undefined: ref did not exist) */
    readonly old: string | undefined,
  ) {}

  get lockPath(): string {
    return path.join(this.commonDir, `${this.ref}.lock`)
  }

  static async acquire(commonDir: string, ref: string, options: LockOptions = {}): Promise<RefLock> {
    const opts = lockOptions(options)
    const file = path.join(commonDir, `${ref}.lock`)
    fs.mkdirSync(path.dirname(file), {recursive: true})
    const start = Date.now()
    let lastOwner: Owner = {raw: ''}
    let lastStaleCheck = 0
    let waiter: LockWaiter | undefined
    try {
      for (;;) {
        // synchronous: the lock is contended by many processes, and every thread-pool hop
        // while holding it lengthens everyone's wait
        // (a `git pack-refs --all` may remove the ref's empty folder at any moment: made again)
        const ino = createOwnedIn(file)
        if (ino !== undefined) {
          // owner temp files of writers killed between writing and linking them: the lock's
          // holder is the one process that may remove them without racing their writer
          sweepTemps(file)
          const old = await readRef(commonDir, ref)
          return new RefLock(commonDir, ref, ino, old)
        }
        if (!waiter) {
          // the watch is only set up once the lock was found taken (most appends never wait),
          // and before trying again, so a release in between still wakes this waiter
          waiter = new LockWaiter(file)
          continue
        }
        const now = Date.now()
        // who holds it, and is it stale? checked at most every 250 ms: reading the owner on
        // every wake-up would itself slow the holder down
        if (now - lastStaleCheck > 250) {
          lastStaleCheck = now
          const st = statOwner(file)
          if (st) {
            lastOwner = st.owner
            if (isStale(st, opts.staleMs)) await breakLock(file, st)
          }
        }
        const waited = now - start
        if (waited > opts.timeoutMs) throw new LockedError(ref, describe(lastOwner), waited)
        await waiter.wait(Math.min(250, opts.timeoutMs - waited + 1))
      }
    } finally {
      waiter?.close()
    }
  }

  /** Compare the ref with the value seen at lock time, then move it to `next` atomically. */
  async commit(next: string): Promise<void> {
    if (this.done) throw new Error('lock already released')
    const now = await readRef(this.commonDir, this.ref)
    if (now !== this.old) {
      await this.release()
      throw new ExpError('E_CONFLICT', `ref ${this.ref} moved from ${this.old ?? '(none)'} to ${now ?? '(none)'} while it was locked`, {hint: 'another tool updated the ref without its lock; retry the command'})
    }
    // The new value goes through `<ref>~new.lock`, renamed over the ref while the lock (still
    // naming its owner) is held; then the lock goes. A writer killed at any point leaves either
    // the old or the new ref, and a lock whose dead owner is recognisable at once.
    const tmp = newValuePath(this.commonDir, this.ref)
    // the folder holds our lock file, so maintenance cannot remove it; retried all the same
    for (let attempt = 1; ; attempt++) {
      try {
        fs.writeFileSync(tmp, `${next}\n`)
        fs.renameSync(tmp, path.join(this.commonDir, this.ref))
        break
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 8) throw e
        fs.mkdirSync(path.dirname(tmp), {recursive: true})
      }
    }
    this.done = true
    fs.rmSync(this.lockPath, {force: true})
  }

  /** Drop the lock without changing the ref (no-op after commit). */
  async release(): Promise<void> {
    if (this.done) return
    this.done = true
    const st = fs.statSync(this.lockPath, {throwIfNoEntry: false})
    if (st && st.ino === this.ino) fs.rmSync(this.lockPath, {force: true})
  }
}

interface LockState {
  owner: Owner
  ino: number
  mtimeMs: number
}

/** A lock file's owner line, inode and age; undefined when it is gone. (Synchronous: a line of a small file, also read on sweepTemps' synchronous path.) */
function statOwner(file: string): LockState | undefined {
  try {
    const st = fs.statSync(file)
    return {owner: parseOwner(fs.readFileSync(file, 'utf8')), ino: st.ino, mtimeMs: st.mtimeMs}
  } catch {
    return undefined
  }
}

function isStale(s: LockState, staleMs: number): boolean {
  if (s.owner.pid && s.owner.host === HOST) return !alive(s.owner.pid)
  // a freshly created lock may not have its owner line written yet: only age tells then
  return Date.now() - s.mtimeMs > staleMs
}

/**
 * Create `file` exclusively *with* its owner line already in it: write a private temp file,
 * then link(2) it to the lock name (fails with EEXIST like O_EXCL). A process killed at any
 * moment never leaves an empty, ownerless lock that only age could break.
 * Returns the lock's inode, or undefined when the file already exists.
 */
function createOwned(file: string): number | undefined {
  const tmp = `${file}~${process.pid}~${Math.random().toString(36).slice(2, 8)}.lock`
  fs.writeFileSync(tmp, `exp pid=${process.pid} host=${HOST} at=${new Date().toISOString()}\n`)
  try {
    fs.linkSync(tmp, file)
    return fs.statSync(file).ino
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined
    throw e
  } finally {
    fs.rmSync(tmp, {force: true})
  }
}

/** createOwned, making the lock's folder again when maintenance removed it in between. */
function createOwnedIn(file: string): number | undefined {
  for (let attempt = 1; ; attempt++) {
    try {
      return createOwned(file)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 8) throw e
      fs.mkdirSync(path.dirname(file), {recursive: true})
    }
  }
}

/** Remove temp files of createOwned left by processes that died between write and link. */
function sweepTemps(file: string): void {
  const dir = path.dirname(file)
  // once a folder per process: the folder of the lanes holds every lane's ref, and listing it
  // for each lock made a first sync of 3,000 lanes list 3,000 files 3,000 times (~1.8 s). The
  // owner temp files of dead writers of every ref in it go at once (a dead pid writes no more;
  // a live one's are left to it)
  if (swept.has(dir)) return
  swept.add(dir)
  for (const f of fs.readdirSync(dir)) {
    const m = /\.lock~(\d+)~[a-z0-9]+\.lock$/.exec(f)
    if (m && Number(m[1]) !== process.pid && !alive(Number(m[1]))) fs.rmSync(path.join(dir, f), {force: true})
    // and the lock of a breaker killed while breaking (breakLock): when the lock it broke is
    // gone, no waiter ever meets it again to remove it, and it stayed for good
    else if (f.endsWith('.lock~break.lock')) removeDeadBreaker(path.join(dir, f))
  }
}

/** Remove a breaker's lock whose owner is dead on this host (the same file seen twice: never a new breaker's). */
function removeDeadBreaker(file: string): void {
  const seen = statOwner(file)
  if (!seen?.owner.pid || seen.owner.host !== HOST || seen.owner.pid === process.pid || alive(seen.owner.pid)) return
  const again = statOwner(file)
  if (again && again.ino === seen.ino && again.owner.raw === seen.owner.raw) fs.rmSync(file, {force: true})
}

/** the folders sweepTemps has swept in this process */
const swept = new Set<string>()

async function breakLock(file: string, seen: LockState): Promise<void> {
  const breaker = `${file}~break.lock`
  if (createOwned(breaker) === undefined) {
    // a breaker killed while breaking is recognised the same way as a dead lock owner
    const st = statOwner(breaker)
    if (st && isStale(st, 5_000)) {
      const again = statOwner(breaker)
      if (again && again.ino === st.ino) fs.rmSync(breaker, {force: true})
    }
    return
  }
  try {
    const again = statOwner(file)
    if (again && again.ino === seen.ino && again.owner.raw === seen.owner.raw) fs.rmSync(file, {force: true})
    swept.delete(path.dirname(file))
    sweepTemps(file)
  } finally {
    fs.rmSync(breaker, {force: true})
  }
}
