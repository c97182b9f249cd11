import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {prepare, seal, encodeRecord, decodeRecord, encodeFacts, recordPath, utcTimestamp, type RecordDraft, type Kind, type ExpRecord} from '../../records/index.js'
import {ConflictError, CorruptObjectError} from '../../errors/index.js'
import {laneRef, parseLaneRef, validateLane} from '../lanes.js'
import {Ledger, type LedgerEntry} from '../ledger.js'
import type {AppendOptions, AppendResult, LaneInfo, LedgerOptions, ReadProblem, RecordStore} from '../port.js'
import {discoverRepo, type RepoPaths} from './repo.js'
import {listRefs} from './refs.js'
import {RefLock} from './lock.js'
import {encodeCommit, parseCommit, type CommitData, type Signature} from './objects.js'
import {sshSigner, type CommitSigner} from './sign.js'
import {IsoReader, NativeReader, type ObjectReader} from './reader.js'
import {LooseSink, PackSink, type ObjectSink} from './writer.js'
import {MutableTree, lookupPaths} from './tree.js'
import {recordMessage, parseTrailers} from './message.js'
import {hasNativeGit} from './native.js'
import {readGitConfig, configValue} from './config.js'
import {laneCommitsIso, laneCommitsNative, laneCommitChunksNative, type LaneCommit} from './log.js'
import {recordChange, checkStoredRecord} from './verify.js'
import {LedgerCache, type LaneState, type CachedEntry} from './cache.js'

export interface GitStoreOptions {
  /** use the native git fast paths (cat-file, log) when a git binary exists; default: auto */
  native?: boolean
  /** batches at least this large are written as one pack file instead of loose objects */
  packThreshold?: number
  /** keep the projection cache under .git/exp (default true) */
  cache?: boolean
  /** sign the commits of evidence records (default: git config exp.signingKey, docs/trust.md) */
  signer?: CommitSigner | null
}

/** The records whose commits are signed when a signing key is configured: what decides (docs/trust.md). */
const SIGNED_KINDS: ReadonlySet<Kind> = new Set(['evaluation', 'decision', 'verdict'])

interface MemEntry extends LedgerEntry {
  bytes: Buffer
}

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

/** The git adapter of the RecordStore port: each record is one commit on its lane ref. */
export class GitRecordStore implements RecordStore {
  private commitTree = new Map<string, {tree: string; lamport: number}>()
  private cache: LedgerCache
  private constructor(readonly repo: RepoPaths, readonly reader: ObjectReader, readonly native: boolean, private readonly opts: GitStoreOptions) {
    this.cache = new LedgerCache(repo.commonDir)
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

  async appendBatch(drafts: readonly RecordDraft[], opts: AppendOptions): Promise<AppendResult[]> {
    const lane = validateLane(opts.lane)
    const ref = laneRef(lane, opts.private)
    const prepared = drafts.map(d => prepare(d))
    const inBatch = new Map<string, string>()
    for (const p of prepared) {
      const have = inBatch.get(p.id)
      if (have !== undefined && have !== p.digest) throw new ConflictError(p.id, have, p.digest, lane)
      inBatch.set(p.id, p.digest)
    }
    const lock = await RefLock.acquire(this.commonDir, ref, {timeoutMs: opts.lockTimeoutMs})
    try {
      const tips = await this.laneTips()
      tips.set(ref, lock.old)
      const existing = await this.findExisting(prepared.map(p => ({id: p.id, kind: p.draft.kind})), tips)
      for (const p of prepared) {
        const ex = existing.get(p.id)
        if (ex && ex.digest !== p.digest) throw new ConflictError(p.id, ex.digest, p.digest, ex.lane)
      }
      let lamport = 0
      for (const tip of tips.values()) if (tip) lamport = Math.max(lamport, (await this.commitInfo(tip)).lamport)
      const createdAt = utcTimestamp((opts.now ?? (() => new Date()))())
      const firstSeen = new Set<string>()
      const fresh = prepared.filter(p => !existing.has(p.id) && !firstSeen.has(p.id) && firstSeen.add(p.id))
      const sink: ObjectSink = fresh.length >= (this.opts.packThreshold ?? 16) ? new PackSink(this.commonDir) : new LooseSink(this.commonDir)
      const tree = new MutableTree(this.reader, lock.old ? (await this.commitInfo(lock.old)).tree : undefined)
      const who = await this.signature(lane, createdAt)
      let parent = lock.old
      const made = new Map<string, AppendResult>()
      for (const p of fresh) {
        const record = seal(p, {lane, lamport: ++lamport, createdAt})
        const blob = sink.put('blob', encodeRecord(record))
        await tree.insert(recordPath(record.kind, record.id), blob)
        const root = tree.write(sink, ref)
        const commit: CommitData = {tree: root, parents: parent ? [parent] : [], author: who, committer: who, message: recordMessage(record)}
        const signer = SIGNED_KINDS.has(record.kind) ? await this.signer() : undefined
        if (signer) commit.gpgsig = await signer(encodeCommit(commit))
        parent = sink.put('commit', encodeCommit(commit))
        this.commitTree.set(parent, {tree: root, lamport})
        made.set(p.id, {id: p.id, kind: record.kind, digest: p.digest, status: 'created', lane, ref, lamport, commit: parent})
      }
      if (fresh.length) {
        await sink.flush()
        await lock.commit(parent!)
      } else await lock.release()
      return prepared.map(p => {
        const ex = existing.get(p.id)
        if (ex) {
          return {id: p.id, kind: p.draft.kind, digest: p.digest, status: 'exists', lane: ex.lane, ref: ex.ref, lamport: ex.lamport, commit: ex.commit}
        }
        return made.get(p.id)!
      })
    } catch (e) {
      await lock.release()
      throw e
    }
  }

  /** Lane refs (public and private) and their tips. */
  async laneTips(): Promise<Map<string, string | undefined>> {
    const out = new Map<string, string | undefined>()
    for (const [ref, oid] of await listRefs(this.commonDir, 'refs/research/')) if (parseLaneRef(ref)) out.set(ref, oid)
    return out
  }

  private async commitInfo(oid: string): Promise<{tree: string; lamport: number}> {
    let hit = this.commitTree.get(oid)
    if (!hit) {
      const o = await this.reader.read(oid)
      const c = parseCommit(o.data, oid)
      hit = {tree: c.tree, lamport: parseTrailers(c.message).lamport ?? 0}
      this.commitTree.set(oid, hit)
    }
    return hit
  }

  /** Records already present on any lane, by id: looked up by canonical path in each lane's tip tree. */
  private async findExisting(items: {id: string; kind: Kind}[], tips: Map<string, string | undefined>): Promise<Map<string, {digest: string; lane: string; ref: string; lamport: number; commit?: string}>> {
    const out = new Map<string, {digest: string; lane: string; ref: string; lamport: number; commit?: string}>()
    for (const [ref, tip] of tips) {
      if (!tip) continue
      const want = items.filter(it => !out.has(it.id))
      if (!want.length) break
      const {tree} = await this.commitInfo(tip)
      const found = await lookupPaths(this.reader, tree, want.map(it => recordPath(it.kind, it.id)))
      if (!found.size) continue
      const hits = want.filter(it => found.has(recordPath(it.kind, it.id)))
      const blobs = await this.reader.readMany(hits.map(it => found.get(recordPath(it.kind, it.id))!.oid))
      hits.forEach((it, k) => {
        const where = `${ref}:${recordPath(it.kind, it.id)}`
        const data = blobs[k]!
        if (data instanceof Error) throw new CorruptObjectError('object', `${where}: ${data.message}`, {where})
        const rec = decodeRecord(data, where)
        out.set(it.id, {digest: rec.digest, lane: parseLaneRef(ref)!.lane, ref, lamport: rec.lamport})
      })
    }
    return out
  }

  private async signature(lane: string, createdAt: string): Promise<Signature> {
    const time = Math.floor(Date.parse(createdAt) / 1000)
    const name = process.env.GIT_AUTHOR_NAME ?? (await this.config('user.name')) ?? 'exp'
    const email = process.env.GIT_AUTHOR_EMAIL ?? (await this.config('user.email')) ?? `${lane}@exp.invalid`
    return {name, email, time}
  }

  private cfg: Map<string, string[]> | undefined
  private signing: Promise<CommitSigner | undefined> | undefined

  /** exp.signingKey, else user.signingKey when git itself signs commits with SSH keys. */
  private signer(): Promise<CommitSigner | undefined> {
    if (this.opts.signer !== undefined) return Promise.resolve(this.opts.signer ?? undefined)
    this.signing ??= (async () => {
      const own = process.env.EXP_SIGNING_KEY || (await this.config('exp.signingkey'))
      const gitKey = (await this.config('gpg.format')) === 'ssh' && (await this.config('commit.gpgsign')) === 'true' ? await this.config('user.signingkey') : undefined
      const key = own ?? gitKey
      return key ? sshSigner(key.replace(/^~(?=\/)/, os.homedir())) : undefined
    })()
    return this.signing
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

  /** The record blobs of commits, read in one batch (then checked by checkRecords). */
  private async fetchRecords(commits: LaneCommit[]): Promise<{located: ReturnType<typeof recordChange>[]; got: (Buffer | Error)[]}> {
    const located = commits.map(c => recordChange(c))
    return {located, got: await this.reader.readMany(located.flatMap(l => ('blob' in l ? [l.blob] : [])))}
  }

  /** Check fetched records in process: good ones become entries, bad ones problems. */
  private async checkRecords(ref: string, commits: LaneCommit[], {located, got}: {located: ReturnType<typeof recordChange>[]; got: (Buffer | Error)[]}): Promise<{add: {entry: LedgerEntry; bytes: Buffer}[]; problems: ReadProblem[]}> {
    const info = parseLaneRef(ref)!
    const add: {entry: LedgerEntry; bytes: Buffer}[] = []
    const problems: ReadProblem[] = []
    let gi = 0
    for (const [k, c] of commits.entries()) {
      // every so often a turn of the event loop: cat-file's answers for the next chunk are
      // taken from its pipe (64 KiB), which would otherwise fill and stop it while this checks
      if (k % 64 === 63) await new Promise(resolve => setImmediate(resolve))
      const loc = located[k]!
      if ('problem' in loc) {
        problems.push({ref, commit: c.oid, path: loc.path, message: loc.problem})
        continue
      }
      const data = got[gi++]!
      if (data instanceof Error) {
        problems.push({ref, commit: c.oid, path: loc.path, id: loc.id, message: data.message})
        continue
      }
      const {record, problems: bad} = checkStoredRecord(data, c, {lane: info.lane, ...loc})
      if (!record) {
        problems.push(...bad.map(message => ({ref, commit: c.oid, path: loc.path, id: loc.id, message})))
        continue
      }
      const facts = encodeFacts(record)
      add.push({entry: {id: record.id, kind: record.kind, digest: record.digest, lane: info.lane, ref, private: info.private, lamport: record.lamport, commit: c.oid, cites: record.cites, ...(facts ? {facts} : {})}, bytes: data})
    }
    return {add, problems}
  }

  async ledger(opts: LedgerOptions = {}): Promise<Ledger> {
    const {lanes, key} = await this.refresh()
    const mode = opts.includePrivate === false ? 'public' : 'all'
    const visible = mode === 'all' ? lanes : lanes.filter(l => !l.private)
    const problems = lanes.flatMap(l => l.problems)
    // lane tips name their content: the same lanes give the same ledger, so a process that asks
    // again (the loop does, many times per iteration) gets the one it built; when lanes only
    // grew, the new ledger is the last one plus the new entries (a merge, not a sort of all)
    const memo = this.memo?.mode === mode ? this.memo : undefined
    const added = memo && addedSince(memo.lanes, visible)
    let ledger: Ledger | undefined
    if (memo && added && !added.length && memo.key === key) ledger = memo.ledger
    else if (memo && added) ledger = Ledger.extend(memo.ledger, added, problems)
    ledger ??= new Ledger(visible.flatMap(l => l.entries), e => this.loadOne(e), problems, es => this.loadMany(es))
    this.memo = {key, mode, ledger, lanes: new Map(visible.map(l => [l.ref, l.entries]))}
    return ledger
  }

  private loadOne(e: LedgerEntry): ExpRecord {
    return decodeRecord('bytes' in e ? (e as MemEntry).bytes : this.cache.read(e as CachedEntry), e.id)
  }

  /** bodies of many entries: the cache reads each data file in a few large reads */
  private loadMany(es: readonly LedgerEntry[]): ExpRecord[] {
    const bufs = this.cache.readMany(es.filter(e => !('bytes' in e)) as CachedEntry[])
    let k = 0
    return es.map(e => decodeRecord('bytes' in e ? (e as MemEntry).bytes : bufs[k++]!, e.id))
  }

  private memo: {key: string; mode: 'all' | 'public'; ledger: Ledger; lanes: Map<string, readonly LedgerEntry[]>} | undefined
  /** per lane ref: the entries read at a tip, so an unchanged lane is not read from the cache files again */
  private laneMemo = new Map<string, {tip: string; gen?: number; entries: LedgerEntry[]; problems: ReadProblem[]}>()

  /** Bring the cache up to the current lane tips, reading only new commits. */
  private async refresh(): Promise<{lanes: LaneRead[]; key: string}> {
    const tips = await this.laneTips()
    const key = [...tips].map(([ref, tip]) => `${ref} ${tip ?? '-'}`).sort().join('\n')
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
    // nothing moved since the last ledger: no cache file to read, no lock to take
    if (this.laneMemo.size && live.every(([ref, tip]) => usable(ref, tip))) return {lanes: live.map(([ref]) => remembered(ref)), key}
    const persist = this.opts.cache !== false && this.cache.tryLock()
    try {
      const state = persist || this.opts.cache !== false ? this.cache.loadState() : {format: 1, lanes: {} as Record<string, LaneState>}
      const lanes: LaneRead[] = []
      let changed = false
      for (const [ref, tip] of live) {
        if (usable(ref, tip)) {
          lanes.push(remembered(ref))
          continue
        }
        let st: LaneState | undefined = state.lanes[ref]
        let start: LedgerEntry[] | undefined
        if (st) {
          // entries this process already holds for the cached tip need no second read of the index
          const m = this.laneMemo.get(ref)
          start = m && m.tip === st.tip && m.gen === st.gen && filesThere(m.entries) ? m.entries : this.cachedEntries(ref, st)
          // a damaged cache (files removed by hand) is just no cache for that lane
          if (!start) st = undefined
          else if (st.tip === tip) {
            lanes.push({ref, private: parseLaneRef(ref)!.private, entries: start, problems: st.problems})
            this.laneMemo.set(ref, {tip, gen: st.gen, entries: start, problems: st.problems})
            continue
          }
        }
        const lane = (await this.readLane(ref, tip, st, persist, start)) ?? (await this.readLane(ref, tip, undefined, persist))!
        lanes.push({ref, private: parseLaneRef(ref)!.private, entries: lane.entries, problems: lane.problems})
        this.laneMemo.set(ref, {tip, gen: lane.state?.gen, entries: lane.entries, problems: lane.problems})
        if (persist) {
          state.lanes[ref] = lane.state!
          changed = true
        }
      }
      for (const ref of Object.keys(state.lanes)) {
        if (!tips.get(ref)) {
          if (persist) this.cache.drop(ref, state.lanes[ref]!)
          delete state.lanes[ref]
          changed = true
        }
      }
      if (persist && changed) this.cache.saveState(state)
      return {lanes, key}
    } finally {
      if (persist) this.cache.unlock()
    }
  }

  private cachedEntries(ref: string, st: LaneState): CachedEntry[] | undefined {
    const info = parseLaneRef(ref)!
    try {
      return this.cache.readEntries(ref, st, info.lane, info.private)
    } catch {
      return undefined
    }
  }

  /**
   * Read one lane from `st` (the cached state, incremental) or from scratch, streaming
   * chunks of commits into the cache. Returns undefined when the cached tip is not an
   * ancestor of the new tip (the lane was rewritten): the caller then reads it from scratch.
   */
  private async readLane(ref: string, tip: string, st: LaneState | undefined, persist: boolean, start?: LedgerEntry[]): Promise<{entries: LedgerEntry[]; problems: ReadProblem[]; state?: LaneState} | undefined> {
    const info = parseLaneRef(ref)!
    const entries: LedgerEntry[] = st ? (start ? [...start] : this.cachedEntries(ref, st) ?? []) : []
    const problems: ReadProblem[] = [...(st?.problems ?? [])]
    let state = st
    let first = true
    // a pipeline: git log runs ahead (laneCommitChunksNative), and the blobs of the next
    // chunk are requested from cat-file as soon as git log has listed it, so both git
    // processes work while this one checks and caches the chunk before
    const chunks = this.laneCommitChunks(tip, st?.tip)
    const fetchNext = async () => {
      const n = await chunks.next()
      if (n.done) return undefined
      const fetched = this.fetchRecords(n.value)
      fetched.catch(() => undefined) // awaited in its turn; not unhandled until then
      return {chunk: n.value, fetched}
    }
    try {
      let cur = await fetchNext()
      while (cur) {
        const chunk = cur.chunk
        if (first && st && chunk[0]!.parents[0] !== st.tip) throw new Error('rewritten')
        first = false
        const fetched = await cur.fetched
        const next = fetchNext()
        next.catch(() => undefined) // awaited below; not unhandled until then
        // one turn of the event loop: the next chunk, usually already listed, has its blobs requested
        await new Promise(resolve => setImmediate(resolve))
        const {add, problems: bad} = await this.checkRecords(ref, chunk, fetched)
        if (persist) {
          const res = this.cache.append(ref, state, tip, add, bad, info.lane, info.private)
          state = res.state
          entries.push(...res.entries)
        } else entries.push(...add.map(a => ({...a.entry, bytes: a.bytes}) as MemEntry))
        problems.push(...bad)
        cur = await next
      }
      if (first && st) throw new Error('rewritten')
    } catch (e) {
      await chunks.return(undefined)
      if (!st) throw e
      if (persist) this.cache.drop(ref, st)
      return undefined
    }
    if (persist && !state) state = this.cache.append(ref, undefined, tip, [], [], info.lane, info.private).state
    if (state) state = {...state, tip, problems}
    return {entries, problems, state}
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
    return [...tips].filter(([, tip]) => tip).map(([ref, tip]) => {
      const info = parseLaneRef(ref)!
      const s = stats.get(ref) ?? {records: 0, last: 0}
      return {lane: info.lane, ref, private: info.private, tip: tip!, records: s.records, lastLamport: s.last}
    })
  }

  /** Remove the derived cache (it is rebuilt on the next read). */
  dropCache(): void {
    this.cache.close()
    fs.rmSync(path.dirname(this.cache.dir), {recursive: true, force: true})
    this.cache = new LedgerCache(this.commonDir)
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
