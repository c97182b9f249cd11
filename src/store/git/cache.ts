import fs from 'node:fs'
import path from 'node:path'
import os from 'node:os'
import type {Kind} from '../../records/index.js'
import type {LedgerEntry} from '../ledger.js'
import type {ReadProblem} from '../port.js'

/**
 * The derived projection cache under .git/exp/cache-v2/: per lane ref, an index file (one
 * TSV line per record: commit, id, kind, digest, lamport, offset, length, cites, facts) and
 * a data file (the record bytes), plus state.json naming the lane
 * tips they were built from. Append-only per lane, so an incremental update only reads the
 * commits new since the cached tip. Deleting the folder changes no answer.
 */
// 2: the facts column (records/facts.ts); a cache of format 1 is rebuilt
export const CACHE_FORMAT = 2

export interface LaneState {
  tip: string
  gen: number
  count: number
  idxBytes: number
  datBytes: number
  lastLamport: number
  problems: ReadProblem[]
}

export interface CacheState {
  format: number
  lanes: Record<string, LaneState>
}

export interface CachedEntry extends LedgerEntry {
  off: number
  len: number
  file: string
}

const HOST = os.hostname()

export class LedgerCache {
  readonly dir: string
  private fds = new Map<string, number>()
  private lockFile: string

  constructor(commonDir: string) {
    this.dir = path.join(commonDir, 'exp', `cache-v${CACHE_FORMAT}`)
    this.lockFile = path.join(this.dir, 'write.lock')
  }

  loadState(): CacheState {
    try {
      const s = JSON.parse(fs.readFileSync(path.join(this.dir, 'state.json'), 'utf8')) as CacheState
      if (s.format === CACHE_FORMAT && s.lanes) return s
    } catch {
      // no cache or unreadable: rebuild
    }
    return {format: CACHE_FORMAT, lanes: {}}
  }

  saveState(s: CacheState): void {
    const tmp = path.join(this.dir, `state.json.${process.pid}.tmp`)
    fs.writeFileSync(tmp, JSON.stringify(s))
    fs.renameSync(tmp, path.join(this.dir, 'state.json'))
  }

  /** Take the cache write lock, or return false when another process holds it (then nothing is persisted). */
  tryLock(): boolean {
    try {
      fs.mkdirSync(this.dir, {recursive: true})
      const fd = fs.openSync(this.lockFile, 'wx')
      fs.writeSync(fd, `exp pid=${process.pid} host=${HOST}\n`)
      fs.closeSync(fd)
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false
      try {
        const text = fs.readFileSync(this.lockFile, 'utf8')
        const m = /pid=(\d+) host=(\S+)/.exec(text)
        const st = fs.statSync(this.lockFile)
        const dead = m && m[2] === HOST && !alive(Number(m[1]))
        if (dead || Date.now() - st.mtimeMs > 120_000) {
          fs.unlinkSync(this.lockFile)
          return this.tryLock()
        }
      } catch {
        // raced with its owner: leave it
      }
      return false
    }
  }

  unlock(): void {
    fs.rmSync(this.lockFile, {force: true})
  }

  private base(ref: string, gen: number): string {
    return path.join(this.dir, `${ref.replace(/\//g, '~')}.${gen}`)
  }

  /** Read a lane's cached entries, up to the lengths recorded in state. */
  readEntries(ref: string, st: LaneState, lane: string, isPrivate: boolean): CachedEntry[] {
    const base = this.base(ref, st.gen)
    const buf = Buffer.alloc(st.idxBytes)
    const fd = fs.openSync(`${base}.idx`, 'r')
    try {
      fs.readSync(fd, buf, 0, st.idxBytes, 0)
    } finally {
      fs.closeSync(fd)
    }
    const text = buf.toString('latin1')
    const out: CachedEntry[] = new Array(st.count)
    const file = `${base}.dat`
    let pos = 0
    for (let i = 0; i < st.count; i++) {
      const nl = text.indexOf('\n', pos)
      const f = text.slice(pos, nl).split('\t')
      pos = nl + 1
      out[i] = {commit: f[0]!, id: f[1]!, kind: f[2] as Kind, digest: f[3]!, lamport: Number(f[4]), off: Number(f[5]), len: Number(f[6]), cites: f[7] ? f[7].split(' ') : [], facts: f[8] || undefined, lane, ref, private: isPrivate, file}
    }
    return out
  }

  /** Append new records of a lane (truncating any tail a crashed writer left). Returns the new state. */
  append(ref: string, st: LaneState | undefined, tip: string, add: {entry: LedgerEntry; bytes: Buffer}[], problems: ReadProblem[], lane: string, isPrivate: boolean): {state: LaneState; entries: CachedEntry[]} {
    fs.mkdirSync(this.dir, {recursive: true})
    const gen = st?.gen ?? Date.now()
    const base = this.base(ref, gen)
    const idxFile = `${base}.idx`
    const datFile = `${base}.dat`
    const idxBytes = st?.idxBytes ?? 0
    let datBytes = st?.datBytes ?? 0
    if (!st) {
      fs.writeFileSync(idxFile, '')
      fs.writeFileSync(datFile, '')
    } else {
      fs.truncateSync(idxFile, idxBytes)
      fs.truncateSync(datFile, datBytes)
    }
    const lines: string[] = []
    const dats: Buffer[] = []
    const entries: CachedEntry[] = []
    for (const {entry: e, bytes} of add) {
      lines.push(`${e.commit}\t${e.id}\t${e.kind}\t${e.digest}\t${e.lamport}\t${datBytes}\t${bytes.length}\t${e.cites.join(' ')}\t${e.facts ?? ''}\n`)
      entries.push({...e, off: datBytes, len: bytes.length, file: datFile, lane, ref, private: isPrivate})
      dats.push(bytes)
      datBytes += bytes.length
    }
    const idx = Buffer.from(lines.join(''), 'latin1')
    fs.appendFileSync(datFile, Buffer.concat(dats))
    fs.appendFileSync(idxFile, idx)
    const last = add.length ? add[add.length - 1]!.entry.lamport : st?.lastLamport ?? 0
    return {
      state: {tip, gen, count: (st?.count ?? 0) + add.length, idxBytes: idxBytes + idx.length, datBytes, lastLamport: last, problems: [...(st?.problems ?? []), ...problems]},
      entries,
    }
  }

  /** Remove files of lanes that are gone or rebuilt. */
  drop(ref: string, st: LaneState): void {
    const base = this.base(ref, st.gen)
    for (const ext of ['idx', 'dat']) {
      const f = `${base}.${ext}`
      const fd = this.fds.get(f)
      if (fd !== undefined) {
        fs.closeSync(fd)
        this.fds.delete(f)
      }
      fs.rmSync(f, {force: true})
    }
  }

  read(e: CachedEntry): Buffer {
    let fd = this.fds.get(e.file)
    if (fd === undefined) {
      fd = fs.openSync(e.file, 'r')
      this.fds.set(e.file, fd)
    }
    const buf = Buffer.allocUnsafe(e.len)
    fs.readSync(fd, buf, 0, e.len, e.off)
    return buf
  }

  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd)
    this.fds.clear()
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}
