import {promises as fsp, constants as FS} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {LockedError, ExpError} from '../../errors/index.js'
import {readRef} from './refs.js'

export interface LockOptions {
  /** how long to wait for a live writer before failing (ms) */
  timeoutMs?: number
  /** a lock without a live owner we can check is considered stale after this age (ms) */
  staleMs?: number
}

const DEFAULTS = {timeoutMs: 30_000, staleMs: 120_000}
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

function alive(pid: number): boolean {
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

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms))

/**
 * git's lockfile protocol for one ref: `<ref>.lock` is created exclusively, the old value is
 * compared under the lock, the new value is written into the lock file and the lock is
 * renamed over the ref. Native git uses the same file, so exp and git interlock.
 * A lock whose owner died (same host, pid gone) or that is older than staleMs is broken
 * under a second `.lock.break` lock, so two waiters never both break it.
 */
export class RefLock {
  private done = false
  private constructor(
    readonly commonDir: string,
    readonly ref: string,
    private readonly fh: fsp.FileHandle,
    private readonly ino: number,
    /** ref value when the lock was taken (undefined: ref did not exist) */
    readonly old: string | undefined,
  ) {}

  get lockPath(): string {
    return path.join(this.commonDir, `${this.ref}.lock`)
  }

  static async acquire(commonDir: string, ref: string, options: LockOptions = {}): Promise<RefLock> {
    const opts = {...DEFAULTS, ...options}
    const file = path.join(commonDir, `${ref}.lock`)
    await fsp.mkdir(path.dirname(file), {recursive: true})
    const start = Date.now()
    let wait = 1
    let lastOwner: Owner = {raw: ''}
    for (;;) {
      try {
        const fh = await fsp.open(file, FS.O_CREAT | FS.O_EXCL | FS.O_RDWR, 0o644)
        await fh.write(`exp pid=${process.pid} host=${HOST} at=${new Date().toISOString()}\n`)
        const {ino} = await fh.stat()
        const old = await readRef(commonDir, ref)
        return new RefLock(commonDir, ref, fh, ino, old)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      }
      const st = await statOwner(file)
      if (st) {
        lastOwner = st.owner
        if (isStale(st, opts.staleMs)) await breakLock(file, st)
      }
      const waited = Date.now() - start
      if (waited > opts.timeoutMs) throw new LockedError(ref, describe(lastOwner), waited)
      await sleep(wait + Math.random() * wait)
      wait = Math.min(wait * 2, 50)
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
    await this.fh.truncate(0)
    await this.fh.write(`${next}\n`, 0)
    await this.fh.close()
    await fsp.rename(this.lockPath, path.join(this.commonDir, this.ref))
    this.done = true
  }

  /** Drop the lock without changing the ref (no-op after commit). */
  async release(): Promise<void> {
    if (this.done) return
    this.done = true
    await this.fh.close().catch(() => undefined)
    const st = await fsp.stat(this.lockPath).catch(() => undefined)
    if (st && st.ino === this.ino) await fsp.unlink(this.lockPath).catch(() => undefined)
  }
}

interface LockState {
  owner: Owner
  ino: number
  mtimeMs: number
}

async function statOwner(file: string): Promise<LockState | undefined> {
  try {
    const [st, text] = await Promise.all([fsp.stat(file), fsp.readFile(file, 'utf8')])
    return {owner: parseOwner(text), ino: st.ino, mtimeMs: st.mtimeMs}
  } catch {
    return undefined
  }
}

function isStale(s: LockState, staleMs: number): boolean {
  if (s.owner.pid && s.owner.host === HOST) return !alive(s.owner.pid)
  // a freshly created lock may not have its owner line written yet: only age tells then
  return Date.now() - s.mtimeMs > staleMs
}

async function breakLock(file: string, seen: LockState): Promise<void> {
  const breaker = `${file}.break`
  let fh: fsp.FileHandle
  try {
    fh = await fsp.open(breaker, FS.O_CREAT | FS.O_EXCL | FS.O_WRONLY, 0o644)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    // a breaker that died while breaking: its window is microseconds, so a few seconds is stale
    const st = await fsp.stat(breaker).catch(() => undefined)
    if (st && Date.now() - st.mtimeMs > 5_000) await fsp.unlink(breaker).catch(() => undefined)
    return
  }
  try {
    const again = await statOwner(file)
    if (again && again.ino === seen.ino && again.owner.raw === seen.owner.raw) await fsp.unlink(file).catch(() => undefined)
  } finally {
    await fh.close()
    await fsp.unlink(breaker).catch(() => undefined)
  }
}
