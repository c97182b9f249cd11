import fs from 'node:fs'
import os from 'node:os'
import {execFileSync} from 'node:child_process'
import {artifactMatches, decodeRecord, escapeUnsafe, recordPath, type RecordDraft, type Kind, type ExpRecord} from '../../records/index.js'
import {CorruptObjectError, NotFoundError} from '../../errors/index.js'
import {OBJECT_MAX, ObjectTooLarge, parseCommit} from './objects.js'
import {answerHeader} from './native.js'
import {lookupPath} from './tree.js'
import {isLaneName, parseLaneRef} from '../lanes.js'
import {Ledger, type LedgerEntry} from '../ledger.js'
import type {AppendOptions, AppendResult, LaneInfo, LedgerOptions, ReadProblem, RecordStore} from '../port.js'
import {problem, LANE_FAILURES} from '../problems.js'
import {discoverRepo, type RepoPaths} from '../../git/repo.js'
import {scanRefs, type BadRef} from '../../git/refs.js'
import {tipTooLarge} from './lane-check.js'
import {RefLock} from '../../git/lock.js'
import {sshSigner, type CommitSigner} from './sign.js'
import {IsoReader, NativeReader, type ObjectReader} from './reader.js'
import {hasNativeGit, runGit} from '../../git/run.js'
import {readGitConfig, configValue, parseSize} from '../../git/config.js'
import {laneCommitsIso, laneCommitsNative, laneCommitChunksNative, type LaneCommit} from './log.js'
import {LedgerCache, CacheMismatch, CacheWriteError, type LaneState, type CachedEntry} from './cache.js'
import {readLane, type MemEntry} from './lane-read.js'
import {checkRecordBytes} from './record-bytes.js'
import {deletedMessage, loadSeenTips, rewoundMessage, saveSeenTips} from './tips.js'
import {LaneWriter} from './append.js'
import {parseTrailers, trailersOf} from './message.js'
import {gitEnv} from '../../git/env.js'
import {holdingYoungGeneration} from '../../young-generation.js'

/** The lanes' entries in one new array (flatMap's generic path cost ~15 ms at 100,000) */
function concatEntries(lanes: readonly {entries: readonly LedgerEntry[]}[]): LedgerEntry[] {
  let n = 0
  for (const l of lanes) n += l.entries.length
  const all = new Array<LedgerEntry>(n)
  let k = 0
  for (const l of lanes) for (const e of l.entries) all[k++] = e
  return all
}

export interface GitStoreOptions {
  /** use the native git fast paths (cat-file, log) when a git binary exists; default: auto */
  native?: boolean
  /** batches at least this large are written as one pack file instead of loose objects */
  packThreshold?: number
  /** keep the projection cache under .git/exp (default true) */
  cache?: boolean
  /** the largest record file accepted, in bytes (default: git config exp.maxRecordBytes, else 1 MiB) */
  maxRecordBytes?: number
  /** the largest artifact accepted, in bytes (default: git config exp.maxArtifactBytes, else 100 MiB) */
  maxArtifactBytes?: number
  /** where warnings go (a lane that cannot be read, a rewound lane, a cache rebuilt); default: stderr */
  onWarning?: (message: string) => void
  /** sign the commits of evidence records (default: git config exp.signingKey, docs/trust.md) */
  signer?: CommitSigner | null
}

export const DEFAULT_MAX_RECORD_BYTES = 1024 * 1024
/** record files up to this size are always read, whatever `exp.maxRecordBytes` says now */
export const READ_CEILING_FLOOR = 16 * 1024 * 1024
export const DEFAULT_MAX_ARTIFACT_BYTES = 100 * 1024 * 1024

interface LaneRead {
  ref: string
  private: boolean
  entries: readonly LedgerEntry[]
  problems: readonly ReadProblem[]
}


/**
 * The entries of `now` that are not in a ledger built from `before` (per lane ref), when
 * every lane of `before` is still there and only grew (its old entries, the same objects,
 * come first); undefined otherwise.
 */
function addedSince(before: Map<string, readonly LedgerEntry[]>, now: readonly LaneRead[]): LedgerEntry[] | undefined {
  const refs = new Set(now.map(l => l.ref))
  for (const ref of before.keys()) if (!refs.has(ref)) return undefined
  const added: LedgerEntry[] = []
  for (const l of now) {
    const old = before.get(l.ref) ?? []
    if (old === l.entries) continue
    if (old.length > l.entries.length || (old.length && l.entries[old.length - 1] !== old[old.length - 1])) return undefined
    for (let i = old.length; i < l.entries.length; i++) added.push(l.entries[i]!)
  }
  return added
}

/** what to do about a lane ref whose name no lane may have (a plain `git fetch 'refs/research/*:…'` takes any) */
const BAD_NAME_HINT = 'a lane name is one component of letters, digits and . _ - @ + (at most 100 characters): exp does not read this ref. Delete it (`git update-ref -d REF`), or keep its records under a lane name (`git update-ref refs/research/lanes/NAME REF`, then delete it)'

/** The git adapter of the RecordStore port: each record is one commit on its lane ref. */
export class GitRecordStore implements RecordStore {
  private cache: LedgerCache
  private writer: LaneWriter
  private warned = new Set<string>()
  private constructor(readonly repo: RepoPaths, readonly reader: ObjectReader, readonly native: boolean, private readonly opts: GitStoreOptions) {
    this.cache = new LedgerCache(repo.commonDir)
    this.writer = new LaneWriter({
      commonDir: repo.commonDir,
      reader,
      config: key => this.config(key),
      laneTips: () => this.laneTips(),
      packThreshold: opts.packThreshold ?? 16,
      maxRecordBytes: () => this.maxRecordBytes(),
      maxArtifactBytes: () => this.maxArtifactBytes(),
      signer: () => this.signer(),
    })
  }

  static async open(where: string | RepoPaths = process.cwd(), opts: GitStoreOptions = {}): Promise<GitRecordStore> {
    const repo = typeof where === 'string' ? discoverRepo(where) : where
    const native = opts.native ?? (await hasNativeGit())
    const reader = native ? new NativeReader(repo.commonDir) : new IsoReader(repo.commonDir)
    return new GitRecordStore(repo, reader, native, opts)
  }

  get commonDir(): string {
    return this.repo.commonDir
  }

  async append<K extends Kind>(draft: RecordDraft<K>, opts: AppendOptions): Promise<AppendResult> {
    return (await this.appendBatch([draft], opts))[0]!
  }

  appendBatch(drafts: readonly RecordDraft[], opts: AppendOptions): Promise<AppendResult[]> {
    return this.writer.appendBatch(drafts, opts)
  }

  /** The largest record file accepted: the option, else git config exp.maxRecordBytes, else 1 MiB. */
  async maxRecordBytes(): Promise<number> {
    if (this.opts.maxRecordBytes !== undefined) return this.opts.maxRecordBytes
    const v = await this.config('exp.maxRecordBytes')
    return v === undefined ? DEFAULT_MAX_RECORD_BYTES : parseSize(v, 'exp.maxRecordBytes')
  }

  /**
   * The largest record file a read takes: `maxRecordBytes`, never below 16 MiB (a limit lowered
   * after larger records were written leaves them readable), the default when the config value
   * is malformed (appends name it; a read must not fail on it). A larger file at a record's path
   * was not written by exp under that limit: it is named (record-too-large), not read, so a
   * hostile blob of any size costs no memory.
   */
  async readCeiling(): Promise<number> {
    const limit = await this.maxRecordBytes().catch(() => DEFAULT_MAX_RECORD_BYTES)
    return Math.max(limit, READ_CEILING_FLOOR)
  }

  /** The largest artifact accepted: the option, else git config exp.maxArtifactBytes, else 100 MiB. */
  async maxArtifactBytes(): Promise<number> {
    if (this.opts.maxArtifactBytes !== undefined) return this.opts.maxArtifactBytes
    const v = await this.config('exp.maxArtifactBytes')
    return v === undefined ? DEFAULT_MAX_ARTIFACT_BYTES : parseSize(v, 'exp.maxArtifactBytes')
  }

  /**
   * The content of an artifact of a record, read from the lane tree of the commit that
   * holds the record and checked against its digest.
   */
  async readArtifact(id: string, name: string): Promise<Buffer> {
    const ledger = await this.ledger()
    const e = ledger.get(id)
    if (!e) throw new NotFoundError('record id', id)
    const ref = ledger.load(e).artifacts?.find(a => a.name === name)
    if (!ref) throw new NotFoundError('artifact', `${name} of ${id}`, 'the record lists its artifacts: `exp inspect ID`')
    const where = `${e.ref}:${ref.path}`
    const commit = await this.holdingCommit(e)
    const c = await this.reader.read(commit, OBJECT_MAX)
    const file = await lookupPath(this.reader, parseCommit(c.data, commit).tree, ref.path)
    if (!file) throw new CorruptObjectError('artifact', `${where} is not in the lane tree`, {where})
    // (no more than the size its record names is read: a blob put there by hand may be of any size)
    const [bytes] = await this.reader.readMany([file.oid], undefined, ref.size)
    if (bytes instanceof ObjectTooLarge) throw new CorruptObjectError('artifact', `${where} is ${bytes.size} bytes, not the ${ref.size} its record names`, {where})
    if (bytes instanceof Error) throw bytes
    if (!artifactMatches(ref, bytes!)) throw new CorruptObjectError('artifact', `${where} does not hash to its digest ${ref.digest}`, {where})
    return bytes!
  }

  /** Lane refs (public and private) and their tips. */
  async laneTips(): Promise<Map<string, string | undefined>> {
    return this.scanLanes().tips
  }

  /** Lane refs and their tips, and the lane ref files that do not name an object. */
  scanLanes(): {tips: Map<string, string | undefined>; bad: BadRef[]} {
    const {refs, bad} = scanRefs(this.commonDir, 'refs/research/')
    const tips = new Map<string, string | undefined>()
    const badLanes = bad.filter(b => parseLaneRef(b.ref))
    for (const [ref, oid] of refs) {
      const info = parseLaneRef(ref)
      if (!info) continue
      // (a packed ref under a name no lane may have, e.g. a temp file an older exp let git pack)
      if (isLaneName(info.lane)) tips.set(ref, oid)
      else badLanes.push({ref, reason: `${JSON.stringify(info.lane)} is not a lane name`, hint: BAD_NAME_HINT})
    }
    return {tips, bad: badLanes}
  }

  private cfg: Map<string, string[]> | undefined
  private signing: Promise<CommitSigner | undefined> | undefined

  /** exp.signingKey, else user.signingKey when git itself signs commits with SSH keys. */
  private signer(): Promise<CommitSigner | undefined> {
    if (this.opts.signer !== undefined) return Promise.resolve(this.opts.signer ?? undefined)
    this.signing ??= (async () => {
      const key = this.signingKeyFile()
      return key ? sshSigner(key) : undefined
    })()
    return this.signing
  }

  /**
   * The key exp signs evidence with (EXP_SIGNING_KEY, git config exp.signingKey, or
   * user.signingKey when git signs commits with SSH keys), when one is set: every sandbox
   * hides it (an agent that read it could sign what it forged).
   */
  signingKeyFile(): string | undefined {
    this.cfg ??= readGitConfig(this.commonDir)
    const own = process.env.EXP_SIGNING_KEY || configValue(this.cfg, 'exp.signingkey')
    const gitKey = configValue(this.cfg, 'gpg.format') === 'ssh' && configValue(this.cfg, 'commit.gpgsign') === 'true' ? configValue(this.cfg, 'user.signingkey') : undefined
    const key = own ?? gitKey
    return key ? key.replace(/^~(?=\/)/, os.homedir()) : undefined
  }

  /** A git config value (repository over global), read in process. */
  async config(key: string): Promise<string | undefined> {
    this.cfg ??= readGitConfig(this.commonDir)
    return configValue(this.cfg, key)
  }

  /** The commits of one lane between `stop` (exclusive) and `tip`, oldest first. */
  laneCommits(tip: string, stop?: string): Promise<LaneCommit[]> {
    return this.native ? laneCommitsNative(this.commonDir, tip, stop) : laneCommitsIso(this.reader, tip, stop)
  }

  /** The same, streamed in chunks (native: parsed from `git log` as it arrives). */
  async *laneCommitChunks(tip: string, stop?: string, size = 1024): AsyncGenerator<LaneCommit[]> {
    if (this.native) {
      yield* laneCommitChunksNative(this.commonDir, tip, stop, size)
      return
    }
    const all = await laneCommitsIso(this.reader, tip, stop)
    for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size)
  }

  /** Say something once per process (a lane that cannot be read is reported by every read otherwise). */
  private warn(message: string): void {
    if (this.warned.has(message)) return
    this.warned.add(message)
    if (this.opts.onWarning) this.opts.onWarning(message)
    // (a lane's ref name is another clone's word: no control or bidirectional character reaches the terminal)
    else process.stderr.write(`warning: ${escapeUnsafe(message)}\n`)
  }

  async ledger(opts: LedgerOptions = {}): Promise<Ledger> {
    // (most of what a read builds lives as long as the command: see young-generation.ts)
    return holdingYoungGeneration(() => this.buildLedger(opts))
  }

  private async buildLedger(opts: LedgerOptions): Promise<Ledger> {
    const {lanes, key, laneProblems} = await this.refresh()
    const mode = opts.includePrivate === false ? 'public' : 'all'
    const visible = mode === 'all' ? lanes : lanes.filter(l => !l.private)
    const problems = [...laneProblems, ...lanes.flatMap(l => l.problems)]
    // lane tips name their content: the same lanes give the same ledger, so a process that asks
    // again (the loop does, many times per iteration) gets the one it built; when lanes only
    // grew, the new ledger is the last one plus the new entries (a merge, not a sort of all)
    const memo = this.memo?.mode === mode ? this.memo : undefined
    const added = memo && addedSince(memo.lanes, visible)
    let ledger: Ledger | undefined
    if (memo && added && !added.length && memo.key === key) ledger = memo.ledger
    else if (memo && added) ledger = Ledger.extend(memo.ledger, added, problems)
    ledger ??= new Ledger(concatEntries(visible), e => this.loadOne(e), problems, es => this.loadMany(es), (es, transient) => this.bytesOf(es, transient))
    this.memo = {key, mode, ledger, lanes: new Map(visible.map(l => [l.ref, l.entries]))}
    return ledger
  }

  private loadOne(e: LedgerEntry): ExpRecord {
    return decodeRecord(this.checkedBytesOf([e])[0]!, e.id)
  }

  /** bodies of many entries: the cache reads each data file in a few large reads */
  private loadMany(es: readonly LedgerEntry[]): ExpRecord[] {
    const bytes = this.checkedBytesOf(es)
    return es.map((e, k) => decodeRecord(bytes[k]!, e.id))
  }

  /**
   * Record files of cached entries this process has read and checked already, for the
   * loaders: the loop asks for the same records many times per iteration, and each time
   * read them from the cache files and checked them against their digests again. Copies
   * (not views into a read buffer), kept while their entries live, up to CHECKED_MAX bytes
   * (then it starts over). The bytes were checked when read, as a lane's bytes read from
   * history are; `recordBytes` (a streamed `--json`, one pass over everything) keeps none.
   */
  private checked = new WeakMap<LedgerEntry, Buffer>()
  private checkedSize = 0

  private checkedBytesOf(es: readonly LedgerEntry[]): Buffer[] {
    const out = new Array<Buffer | undefined>(es.length)
    const rest: LedgerEntry[] = []
    es.forEach((e, k) => {
      const b = 'bytes' in e ? (e as MemEntry).bytes : this.checked.get(e)
      if (b) out[k] = b
      else rest.push(e)
    })
    if (!rest.length) return out as Buffer[]
    const got = this.bytesOf(rest)
    const size = got.reduce((n, b) => n + b.length, 0)
    // (a batch too large to keep is one pass over much of the ledger: no copies of it)
    const keep = size <= CHECKED_BATCH
    if (keep && this.checkedSize + size > CHECKED_MAX) {
      this.checked = new WeakMap()
      this.checkedSize = 0
    }
    let i = 0
    es.forEach((e, k) => {
      if (out[k]) return
      let b = got[i++]!
      if (keep) {
        b = Buffer.from(b)
        this.checked.set(e, b)
        this.checkedSize += b.length
      }
      out[k] = b
    })
    return out as Buffer[]
  }

  /**
   * The record files of entries, each checked: bytes kept in memory were checked when read
   * from history; bytes from the cache are checked against their digest and index line, and
   * a mismatch is read from history instead (and the lane's cache dropped, with one warning:
   * historyBytesOf).
   */
  private bytesOf(es: readonly LedgerEntry[], transient = false): Buffer[] {
    const cached = es.filter(e => !('bytes' in e)) as CachedEntry[]
    const got = cached.length ? this.cache.readMany(cached, transient) : []
    const bad: CachedEntry[] = []
    for (let k = 0; k < got.length; k++) {
      if (!(got[k] instanceof CacheMismatch)) continue
      this.distrust(cached[k]!.ref, got[k] as CacheMismatch)
      bad.push(cached[k]!)
    }
    // (the usual case, a warm read: every record from the cache, and each checked out)
    if (!bad.length && cached.length === es.length) return got as Buffer[]
    const again = bad.length ? this.historyBytesOf(bad) : []
    let k = 0
    let b = 0
    return es.map(e => {
      if ('bytes' in e) return (e as MemEntry).bytes
      const g = got[k++]!
      return g instanceof CacheMismatch ? again[b++]! : g
    })
  }

  /** how many `git cat-file` processes read cached records from history instead (tests and diagnostics) */
  historyReads = 0

  /**
   * Lanes whose cache failed a check in this process: their entries as the ledger being read
   * holds them (in lane order), and the window of them last read from history. A loader that
   * asks for one record at a time (`exp ledger`'s table does) gets the next ones that fail
   * from that window rather than a git process and a warning each (100,000 records whose
   * cached bytes did not check out took ~9 minutes and printed 100,000 warnings; a data file
   * rewritten in place, the same size, is that case: now one warning, 12 s for `exp ledger`).
   * The records of such a lane that check out are still taken from the cache.
   */
  private distrusted = new Map<string, {gen: number | undefined; entries: readonly LedgerEntry[]; place: Map<LedgerEntry, number>; from: number; window: Map<LedgerEntry, Buffer>}>()

  /**
   * Keep the entries a lane was read as. A lane distrusted in this process stays so while they
   * come from the same cache generation (it could not be dropped: another process held the
   * cache's lock), its list now these entries; a rebuilt lane is trusted again.
   */
  private rememberLane(ref: string, m: {tip: string; gen?: number | undefined; entries: LedgerEntry[]; problems: ReadProblem[]}): void {
    this.laneMemo.set(ref, m)
    const d = this.distrusted.get(ref)
    if (!d) return
    if (m.gen !== undefined && m.gen === d.gen) this.distrusted.set(ref, {...d, entries: m.entries, place: new Map(m.entries.map((e, i) => [e, i])), window: new Map()})
    else this.distrusted.delete(ref)
  }

  /** Stop trusting a lane's cache: say so once, drop it (the next read rebuilds it from history). */
  private distrust(ref: string, why: CacheMismatch): void {
    if (this.distrusted.has(ref)) return
    // (the entries the ledger being read holds, and their cache's generation: invalidate forgets them)
    const entries = this.memo?.lanes.get(ref) ?? this.laneMemo.get(ref)?.entries ?? []
    this.distrusted.set(ref, {gen: this.laneMemo.get(ref)?.gen, entries, place: new Map(entries.map((e, i) => [e, i])), from: 0, window: new Map()})
    this.warn(`the cache of ${ref} does not match the records it holds (${why.message}): they are read from history and the cache rebuilt`)
    this.invalidate(ref)
  }

  /**
   * Records of distrusted lanes, from history. Many at once (a streamed `--json`'s batch) are
   * read together, as they are. A few (a loader's) are taken from their lane's window, and for
   * those not in it, a new window around the first of them (up to HISTORY_WINDOW records or
   * HISTORY_WINDOW_BYTES of them, forwards from it, or backwards when the reads go that way).
   */
  private historyBytesOf(es: readonly CachedEntry[]): Buffer[] {
    const out = new Array<Buffer | undefined>(es.length)
    if (es.length >= HISTORY_BATCH) {
      return this.readHistory(es).map(g => {
        if (g instanceof Buffer) return g
        throw g
      })
    }
    for (let k = 0; k < es.length; k++) {
      if (out[k]) continue
      const e = es[k]!
      const d = this.distrusted.get(e.ref)
      let b = d?.window.get(e)
      const at = d?.place.get(e)
      if (!b && d && at !== undefined) {
        const back = d.window.size > 0 && at < d.from
        const from = back ? Math.max(0, at - HISTORY_WINDOW + 1) : at
        const span: CachedEntry[] = []
        let bytes = 0
        for (let i = from; i < d.entries.length && span.length < HISTORY_WINDOW && bytes < HISTORY_WINDOW_BYTES && (!back || i <= at); i++) {
          const w = d.entries[i]!
          if ('bytes' in w) continue
          span.push(w as CachedEntry)
          bytes += (w as CachedEntry).len
        }
        if (!span.includes(e)) span.push(e)
        // (a record history cannot give, as when its index line was edited to name the wrong
        // commit, is left out of the window: it fails when it is the one asked for)
        const got = this.readHistory(span)
        d.window = new Map()
        span.forEach((w, i) => {
          const g = got[i]!
          if (g instanceof Buffer) d.window.set(w, g)
          else if (w === e) throw g
        })
        d.from = from
        b = d.window.get(e)
      }
      // (an entry its lane's list does not hold: read with the others after it that no list holds)
      if (!b) {
        const idx = [k]
        for (let j = k + 1; j < es.length; j++) if (!out[j] && !this.distrusted.get(es[j]!.ref)?.place.has(es[j]!)) idx.push(j)
        const got = this.readHistory(idx.map(j => es[j]!))
        idx.forEach((j, n) => {
          const g = got[n]!
          if (g instanceof Buffer) out[j] = g
          else if (j === k) throw g
        })
        b = out[k]
      }
      out[k] = b
    }
    return out as Buffer[]
  }

  /**
   * Cached entries' record files read from history: one `git cat-file --batch` of
   * COMMIT:PATH for all of them (synchronously: loaders are), each checked in full and
   * against the entry that named it; an error in the place of each that is not there or
   * does not check out.
   */
  private readHistory(es: readonly CachedEntry[]): (Buffer | CorruptObjectError)[] {
    const where = (e: CachedEntry) => `${e.ref}:${recordPath(e.kind, e.id)}`
    if (!this.native) throw new CorruptObjectError('cache', `${where(es[0]!)}: the cached copy does not match its digest`, {where: where(es[0]!)})
    let out: Buffer
    this.historyReads++
    try {
      out = execFileSync('git', ['--git-dir', this.commonDir, 'cat-file', '--batch'], {input: es.map(e => `${e.commit}:${recordPath(e.kind, e.id)}\n`).join(''), stdio: ['pipe', 'pipe', 'ignore'], maxBuffer: 1 << 30, env: gitEnv()})
    } catch (err) {
      throw new CorruptObjectError('record', `${where(es[0]!)}: ${(err as Error).message.split('\n')[0]}`, {where: where(es[0]!)})
    }
    let pos = 0
    return es.map(e => {
      const nl = out.indexOf(10, pos)
      if (nl < 0) return new CorruptObjectError('record', `${where(e)}: git cat-file gave no answer`, {where: where(e)})
      const head = answerHeader(out, pos, nl)
      // (`<name> missing`: no data follows)
      if (head instanceof Error || !Number.isSafeInteger(head.size)) {
        pos = nl + 1
        return new CorruptObjectError('record', `${where(e)} is not in history (missing)`, {where: where(e)})
      }
      const bytes = out.subarray(nl + 1, nl + 1 + head.size)
      pos = nl + 2 + head.size
      if (head.type !== 'blob') return new CorruptObjectError('record', `${where(e)} is not in history (a ${head.type} is there)`, {where: where(e)})
      // the record history holds at that place, checked in full against what the place says
      // (its lane, kind and id). The cache's other claims about it (digest, lamport) are not
      // asked for: they are what did not check out, and history's record is the answer
      // (an edited index with a matching CRC fails the read of that record; the lane is
      // rebuilt from history by the next read, as the warning says)
      const checked = checkRecordBytes(bytes, {lane: e.lane, kind: e.kind, id: e.id})
      if (!checked.ok) return new CorruptObjectError('record', `${where(e)}: ${checked.problems[0]?.message ?? 'it is not a valid record'}`, {where: where(e)})
      return bytes
    })
  }

  /**
   * Forget a lane's cache (in this process, and on disk when the cache lock is free). Its files
   * stay until the lane is cached again: entries of the ledger being read still point into them.
   */
  private invalidate(ref: string): void {
    this.laneMemo.delete(ref)
    this.memo = undefined
    if (this.opts.cache === false || !this.lockCache()) return
    try {
      const state = this.cache.loadState()
      if (state.lanes[ref]) {
        delete state.lanes[ref]
        this.bestEffort('the cache state', () => this.cache.saveState(state))
      }
    } finally {
      this.cache.unlock()
    }
  }

  private memo: {key: string; mode: 'all' | 'public'; ledger: Ledger; lanes: Map<string, readonly LedgerEntry[]>} | undefined
  /** per lane ref: the entries read at a tip, so an unchanged lane is not read from the cache files again */
  private laneMemo = new Map<string, {tip: string; gen?: number; entries: LedgerEntry[]; problems: ReadProblem[]}>()
  /** whether a seen tip is contained in a lane tip, by "seen tip contained-in tip" */
  private contains = new Map<string, boolean>()

  /**
   * Bring the cache up to the current lane tips, reading only new commits. A lane that cannot
   * be read (its ref names no commit, objects of its history are missing) is a problem of that
   * lane: the others read as usual. A lane that moved to a commit not containing the tip seen
   * before is read as it is now, and reported.
   */
  private async refresh(): Promise<{lanes: LaneRead[]; key: string; laneProblems: ReadProblem[]}> {
    const {tips, bad} = this.scanLanes()
    const badRefs: ReadProblem[] = bad.map(b => ({...problem('lane-ref-invalid', `${b.ref} cannot be read: ${b.reason}`, {ref: b.ref, ...(b.hint ? {hint: b.hint} : {})}), ref: b.ref}))
    const key = [...[...tips].map(([ref, tip]) => `${ref} ${tip ?? '-'}`), ...bad.map(b => `${b.ref} !`)].sort().join('\n')
    for (const ref of this.laneMemo.keys()) if (!tips.get(ref)) this.laneMemo.delete(ref)
    const live = [...tips].filter((t): t is [string, string] => !!t[1])
    // (the cache files the entries point into must still be there: the folder may be deleted at any time)
    const filesThere = (entries: LedgerEntry[]) => !entries.length || !('file' in entries[0]!) || fs.existsSync((entries[0] as CachedEntry).file)
    const usable = (ref: string, tip: string) => {
      const m = this.laneMemo.get(ref)
      return !!m && m.tip === tip && filesThere(m.entries)
    }
    const remembered = (ref: string): LaneRead => {
      const m = this.laneMemo.get(ref)!
      return {ref, private: parseLaneRef(ref)!.private, entries: m.entries, problems: m.problems}
    }
    const useCache = this.opts.cache !== false
    // nothing moved since the last ledger: no cache file to read, no lock to take
    if (this.laneMemo.size && live.every(([ref, tip]) => usable(ref, tip)) && this.lastKey === key) {
      return {lanes: live.map(([ref]) => remembered(ref)), key, laneProblems: this.lastLaneProblems}
    }
    const laneProblems = badRefs
    for (const p of badRefs) this.warn(`${p.message}; the other lanes are read as usual (${p.hint})`)
    const persist = useCache && this.lockCache()
    try {
      if (persist) this.cache.removeOldFormats()
      const state = useCache ? this.cache.loadState() : {format: 0, lanes: {} as Record<string, LaneState>}
      const seen = loadSeenTips(this.commonDir)
      let seenChanged = false
      const lanes: LaneRead[] = []
      const rewinds: ReadProblem[] = []
      let changed = false
      for (const [ref, tip] of live) {
        let read: {entries: LedgerEntry[]; problems: ReadProblem[]; sawSeen?: boolean; from?: string}
        try {
          read = usable(ref, tip) ? {...this.laneMemo.get(ref)!} : await this.readOne(ref, tip, state, persist, seen[ref]?.tip, () => (changed = true))
        } catch (e) {
          const p = laneFailure(ref, tip, e)
          laneProblems.push(p)
          this.warn(`${p.message}; the other lanes are read as usual (${p.hint})`)
          if (state.lanes[ref] && persist) {
            this.cache.drop(ref, state.lanes[ref]!)
            delete state.lanes[ref]
            changed = true
          }
          continue
        }
        lanes.push({ref, private: parseLaneRef(ref)!.private, entries: read.entries, problems: read.problems})
        const s = seen[ref]
        if (s && s.tip !== tip && !(await this.contained(s.tip, tip, read))) {
          const p = {...problem('lane-rewound', rewoundMessage(ref, s, tip, read.entries.length), {ref, commit: tip}), ref}
          rewinds.push(p)
          this.warn(`${p.message} (${p.hint})`)
        } else if (!s || s.tip !== tip || s.records !== read.entries.length) {
          seen[ref] = {tip, records: read.entries.length}
          seenChanged = true
        }
      }
      for (const [ref, s] of Object.entries(seen)) {
        if (tips.has(ref) || bad.some(b => b.ref === ref)) continue
        const p = {...problem('lane-rewound', deletedMessage(ref, s), {ref, commit: s.tip}), ref}
        rewinds.push(p)
        this.warn(`${p.message} (${p.hint})`)
      }
      laneProblems.push(...rewinds)
      for (const ref of Object.keys(state.lanes)) {
        if (!tips.get(ref)) {
          if (persist) this.cache.drop(ref, state.lanes[ref]!)
          delete state.lanes[ref]
          changed = true
        }
      }
      // (what cannot be written, a full disk or a folder someone put at the name, is said and
      // not a failure of the read: the records read are right, the next read checks again)
      if (persist && changed) this.bestEffort('the cache state', () => this.cache.saveState(state))
      if (persist && seenChanged) this.bestEffort('the tips seen', () => saveSeenTips(this.commonDir, seen))
      this.lastKey = key
      this.lastLaneProblems = laneProblems
      return {lanes, key, laneProblems}
    } finally {
      if (persist) this.cache.unlock()
    }
  }

  /**
   * The cache's write lock, or false (another process holds it, or the repository is read-only:
   * its writes are left to others). `.git/exp` that is not a folder is said: without it no read
   * is cached and no tip seen is remembered, which nothing else would tell.
   */
  private lockCache(): boolean {
    try {
      return this.cache.tryLock()
    } catch (e) {
      if (!(e instanceof CacheWriteError)) throw e
      this.warn(`${e.message}: reads are not cached and the lane tips seen are not remembered (hint: remove it, exp makes the folder again)`)
      return false
    }
  }

  /** Write one of exp's files under .git/exp; a failure is a warning (`what` could not be written, and why). */
  private bestEffort(what: string, write: () => void): void {
    try {
      write()
    } catch (e) {
      this.warn(`${what} could not be written under .git/exp (${(e as Error).message.split('\n')[0]}): the next read checks again`)
    }
  }

  /** the lane tips of the last refresh, and the lane problems found then */
  private lastKey: string | undefined
  private lastLaneProblems: ReadProblem[] = []

  /** One lane at `tip`: from this process's memory, the cache, incrementally, or in full. */
  private async readOne(ref: string, tip: string, state: {lanes: Record<string, LaneState>}, persist: boolean, watch: string | undefined, onChange: () => void): Promise<{entries: LedgerEntry[]; problems: ReadProblem[]; sawSeen?: boolean; from?: string}> {
    let st: LaneState | undefined = state.lanes[ref]
    let start: LedgerEntry[] | undefined
    if (st) {
      // entries this process already holds for the cached tip need no second read of the index
      const m = this.laneMemo.get(ref)
      start = m && m.tip === st.tip && m.gen === st.gen && fs.existsSync(String((m.entries[0] as CachedEntry | undefined)?.file ?? '')) ? m.entries : this.cachedEntries(ref, st)
      if (!start) {
        // a damaged cache (edited, cut, files removed) is no cache for that lane
        if (persist) this.cache.drop(ref, st)
        delete state.lanes[ref]
        onChange()
        st = undefined
      } else if (st.tip === tip) {
        // the cache stands for history only while history is there: a tip whose object is gone
        // (a gc that raced an append) or is no commit is a lane that cannot be read, cache or not
        await this.checkTip(ref, tip)
        this.rememberLane(ref, {tip, gen: st.gen, entries: start, problems: st.problems})
        return {entries: start, problems: st.problems, from: st.tip}
      }
    }
    await this.checkTip(ref, tip)
    // the lane moved on from the cached tip, which may be gone: a lane replaced by other history
    // and then `git gc --prune=now` (its old tip unreachable) was read on from a commit git no
    // longer has, and reported as unreadable though its history is whole. It is read in full.
    if (st && !(await this.reader.read(st.tip, OBJECT_MAX).then(() => true, () => false))) {
      if (persist) this.cache.drop(ref, st)
      delete state.lanes[ref]
      onChange()
      st = undefined
      start = undefined
    }
    const ctx = {commonDir: this.commonDir, reader: this.reader, native: this.native, cache: this.cache, maxRead: await this.readCeiling()}
    let lane: Awaited<ReturnType<typeof readLane>>
    let from: string | undefined
    try {
      lane = st ? await readLane(ctx, ref, tip, st, persist, start, watch) : undefined
      // the lane read on from the cached tip: the new tip contains it
      from = lane ? st?.tip : undefined
      if (!lane) {
        if (st && persist) this.cache.drop(ref, st)
        lane = (await readLane(ctx, ref, tip, undefined, persist, undefined, watch))!
      }
    } catch (e) {
      if (!(e instanceof CacheWriteError)) throw e
      // the cache's files could not be written (a full disk; a FIFO, a link or a folder put at
      // a name it writes): the lane is read from history without them, and cached again next time
      this.warn(`the cache of ${ref} could not be written (${e.message}): the lane is read from history without it`)
      if (state.lanes[ref]) this.cache.drop(ref, state.lanes[ref]!)
      delete state.lanes[ref]
      onChange()
      lane = (await readLane(ctx, ref, tip, undefined, false, undefined, watch))!
      from = undefined
    }
    this.rememberLane(ref, {tip, gen: lane.state?.gen, entries: lane.entries, problems: lane.problems})
    if (persist && lane.state) {
      state.lanes[ref] = lane.state
      // files of the lane's earlier caches (dropped as damaged, or rebuilt) go now
      this.cache.dropOthers(ref, lane.state!.gen)
      onChange()
    }
    return {entries: lane.entries, problems: lane.problems, sawSeen: lane.sawWatch, from}
  }

  /** A lane tip must be a commit (a ref at a blob or tree is a lane that cannot be read). */
  private async checkTip(ref: string, tip: string): Promise<void> {
    let o
    try {
      o = await this.reader.read(tip, OBJECT_MAX)
    } catch (e) {
      if (e instanceof ObjectTooLarge) throw new TipTooLarge(e.size)
      throw new Error(`its tip ${tip.slice(0, 12)} is missing from the object database (${(e as Error).message.split('\n')[0]})`)
    }
    if (o.type !== 'commit') throw new TipNotCommit(`${ref} points at ${tip.slice(0, 12)}, a ${o.type}, not a commit`)
  }

  /** Whether the lane at `tip` (just read) still contains `seen`, a tip seen before. */
  private async contained(seen: string, tip: string, read: {sawSeen?: boolean; from?: string}): Promise<boolean> {
    if (read.sawSeen || read.from === seen) return true
    const k = `${seen} ${tip}`
    let v = this.contains.get(k)
    if (v === undefined) {
      v = await this.isAncestor(seen, tip)
      this.contains.set(k, v)
    }
    return v
  }

  /**
   * The commit that added record `e` to its lane, checked against history. A ledger entry read
   * from the cache names its commit by the cache's index line, which anyone who can write
   * `.git/exp` can edit (its CRC made to match): the commit must be a commit, name the record
   * by its Exp-Record trailer and lie on the lane (an ancestor of the lane's tip). When it does
   * not, the lane's history is walked, newest first, for the commit that names the record, with
   * one warning, and the lane's cache is dropped (rebuilt by the next read).
   * For the few records a view shows with their commit (`exp inspect`) and artifact reads;
   * the ledger's records themselves are checked against their digests whatever the commit.
   */
  async holdingCommit(e: LedgerEntry): Promise<string> {
    const tip = (await this.laneTips()).get(e.ref)
    if (!tip) throw new NotFoundError('lane', e.ref, '`exp lanes` lists the lanes of this clone')
    const why = await this.notHolding(e, e.commit, tip)
    if (!why) return e.commit
    const found = await this.findHoldingCommit(e, tip)
    if (!found) throw new CorruptObjectError('lane', `no commit of ${e.ref} names record ${e.kind}/${e.id} (its cache named ${e.commit}: ${why})`, {where: e.ref})
    this.warn(`the cache of ${e.ref} names commit ${e.commit} for record ${e.id}, which ${why}: the commit is taken from history (${found}) and the lane's cache rebuilt`)
    this.invalidate(e.ref)
    return found
  }

  /** Why `commit` is not the commit of `e` on the lane at `tip`, or undefined when it is. */
  private async notHolding(e: LedgerEntry, commit: string, tip: string): Promise<string | undefined> {
    if (!/^[0-9a-f]{40}$/.test(commit)) return 'is not a commit id'
    let message: string
    try {
      const o = await this.reader.read(commit, OBJECT_MAX)
      if (o.type !== 'commit') return `is a ${o.type}, not a commit`
      message = parseCommit(o.data, commit).message
    } catch {
      return 'is not in this repository'
    }
    const named = parseTrailers(message).record
    if (named?.kind !== e.kind || named.id !== e.id) return `names ${named ? `${named.kind}/${named.id}` : 'no record'} by its Exp-Record trailer`
    if (!(await this.isAncestor(commit, tip))) return `is not on the lane (not an ancestor of its tip ${tip})`
    return undefined
  }

  /** The newest commit of the lane at `tip` whose Exp-Record trailer names `e`, walking history. */
  private async findHoldingCommit(e: LedgerEntry, tip: string): Promise<string | undefined> {
    const chunks = this.native ? laneCommitChunksNative(this.commonDir, tip, undefined, 1024, 2, false, false) : this.laneCommitChunks(tip)
    try {
      for await (const chunk of chunks) {
        for (const c of chunk) {
          const named = trailersOf(c).record
          if (named?.kind === e.kind && named.id === e.id) return c.oid
        }
      }
    } finally {
      await chunks.return(undefined)
    }
    return undefined
  }

  private async isAncestor(a: string, b: string): Promise<boolean> {
    if (this.native) return (await runGit(['--git-dir', this.commonDir, 'merge-base', '--is-ancestor', a, b], {cwd: this.commonDir, allowFail: true})).code === 0
    try {
      return (await laneCommitsIso(this.reader, b)).some(c => c.oid === a)
    } catch {
      return false
    }
  }

  private cachedEntries(ref: string, st: LaneState): CachedEntry[] | undefined {
    const info = parseLaneRef(ref)!
    try {
      return this.cache.readEntries(ref, st, info.lane, info.private)
    } catch (e) {
      if (e instanceof CacheMismatch) this.warn(`the cache of ${ref} does not match its state (${e.message}): the lane is read from history and its cache rebuilt`)
      return undefined
    }
  }

  async lanes(): Promise<LaneInfo[]> {
    const ledger = await this.ledger()
    const tips = await this.laneTips()
    const stats = new Map<string, {records: number; last: number}>()
    for (const e of [...ledger.entries, ...ledger.duplicates]) {
      const s = stats.get(e.ref) ?? {records: 0, last: 0}
      s.records++
      s.last = Math.max(s.last, e.lamport)
      stats.set(e.ref, s)
    }
    const failed = new Map(ledger.problems.filter(p => LANE_FAILURES.has(p.code)).map(p => [p.ref, p.message]))
    // a lane ref that names no object is still a lane: listed, with its problem
    for (const ref of failed.keys()) if (!tips.get(ref) && parseLaneRef(ref)) tips.set(ref, '')
    return [...tips].filter(([ref, tip]) => tip !== undefined && (tip || failed.has(ref))).sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([ref, tip]) => {
      const info = parseLaneRef(ref)!
      const s = stats.get(ref) ?? {records: 0, last: 0}
      const problem = failed.get(ref)
      return {lane: info.lane, ref, private: info.private, tip: tip!, records: s.records, lastLamport: s.last, ...(problem ? {problem} : {})}
    })
  }

  /** Remove the derived cache (it is rebuilt on the next read). */
  dropCache(): void {
    this.cache.close()
    fs.rmSync(this.cache.dir, {recursive: true, force: true})
    this.cache = new LedgerCache(this.commonDir)
    this.laneMemo.clear()
    this.memo = undefined
  }

  async exclusive<T>(name: string, fn: () => Promise<T>, opts: {timeoutMs?: number} = {}): Promise<T> {
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`invalid lock name ${JSON.stringify(name)}`)
    // git's lockfile protocol on a file that is not a ref: `.git/exp/locks/<name>.lock`, with
    // the same waiting and stale-lock recovery as a lane's lock
    const lock = await RefLock.acquire(this.commonDir, `exp/locks/${name}`, {timeoutMs: opts.timeoutMs})
    try {
      return await fn()
    } finally {
      await lock.release()
    }
  }

  async close(): Promise<void> {
    this.cache.close()
    await this.reader.close()
  }
}

/** bytes of checked record files a store keeps for its loaders (checkedBytesOf), and the largest batch it keeps */
/** records of a distrusted lane read from history at once (store.ts historyBytesOf), and at most this many bytes of them by their index lines */
const HISTORY_WINDOW = 2048
const HISTORY_WINDOW_BYTES = 8 * 1024 * 1024
/** this many records asked for at once are read from history as they are, without a window */
const HISTORY_BATCH = 64
const CHECKED_MAX = 32 * 1024 * 1024
const CHECKED_BATCH = 8 * 1024 * 1024

class TipNotCommit extends Error {}
class TipTooLarge extends Error {
  constructor(readonly size: number) {
    super(`the tip is ${size} bytes`)
  }
}

/** What a lane that could not be read is reported as. */
function laneFailure(ref: string, tip: string, e: unknown): ReadProblem {
  const msg = (e as Error).message.split('\n')[0]!
  if (e instanceof TipNotCommit) return {...problem('lane-ref-not-commit', msg, {ref, commit: tip}), ref}
  if (e instanceof TipTooLarge) return {...tipTooLarge(ref, tip, e.size), ref}
  return {...problem('lane-unreadable', `${ref} cannot be read: ${msg}`, {ref, commit: tip}), ref}
}

