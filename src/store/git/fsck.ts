import {artifactMatches, decodeRecord, encodeFacts, gitBlobId, recordDigest, type ArtifactRef} from '../../records/index.js'
import type {LaneCommit} from './log.js'
import {parseLaneRef} from '../lanes.js'
import {Ledger} from '../ledger.js'
import {problem, formatProblem as formatOne, type Problem, type StoreProblemCode} from '../problems.js'
import type {GitRecordStore} from './store.js'
import {recordChange, unnamedArtifacts} from './verify.js'
import {OBJECT_MAX, ObjectTooLarge, parseCommit} from './objects.js'
import {lookupPaths} from './tree.js'
import {checkRecordBytes} from './record-bytes.js'
import {deletedMessage, loadSeenTips, rewoundMessage} from './tips.js'
import {tipTooLarge, unreadable} from './lane-check.js'
import type {MemEntry} from './lane-read.js'

/** A problem `exp fsck` reports (the store's classes; other layers add their own codes). */
export type FsckProblem = Problem

export interface FsckReport {
  lanes: number
  records: number
  problems: FsckProblem[]
}

/**
 * Check every record on every lane from history alone — the projection cache is never read:
 * lane refs (they must name commits), the walk of each lane (one added record file per
 * commit, nothing modified, no merges), each record file (UTF-8, JSON, schema, canonical
 * form, digest, id derivation, trailers, lane), Lamport order along each lane, duplicate ids
 * with different digests, dangling cites, and lanes that no longer contain a tip this clone
 * has seen (rewound). Returns the report and the ledger of the records that passed, built
 * from the same reads, for checks of the layers above (hypothesis transitions, evidence).
 */
export async function fsckStore(store: GitRecordStore, onProgress?: (done: number, lane: string) => void): Promise<{report: FsckReport; ledger: Ledger}> {
  const problems: FsckProblem[] = []
  const seen = new Map<string, {digest: string; ref: string; lane: string; commit: string; path: string}>()
  /** the copies of each id two lanes hold with other content, the first one seen first */
  const conflicts = new Map<string, {digest: string; ref: string; lane: string; commit: string; path: string}[]>()
  const all: {id: string; cites: readonly string[]; ref: string; lane: string; commit: string}[] = []
  const entries: MemEntry[] = []
  const {tips, bad} = store.scanLanes()
  for (const b of bad) problems.push(problem('lane-ref-invalid', `${b.ref} cannot be read: ${b.reason}`, {ref: b.ref, ...(b.hint ? {hint: b.hint} : {})}))
  const seenTips = loadSeenTips(store.commonDir)
  const ceiling = await store.readCeiling()
  let records = 0
  let lanes = 0
  for (const [ref, tip] of tips) {
    if (!tip) continue
    lanes++
    const lane = parseLaneRef(ref)!.lane
    const o = await store.reader.read(tip, OBJECT_MAX).catch((e: Error) => e)
    if (o instanceof ObjectTooLarge) {
      problems.push(tipTooLarge(ref, tip, o.size))
      continue
    }
    if (o instanceof Error) {
      problems.push(problem('lane-unreadable', `${ref} cannot be read: its tip ${tip.slice(0, 12)} is missing (${o.message.split('\n')[0]})`, {ref, commit: tip}))
      continue
    }
    if (o.type !== 'commit') {
      problems.push(problem('lane-ref-not-commit', `${ref} points at ${tip.slice(0, 12)}, a ${o.type}, not a commit`, {ref, commit: tip}))
      continue
    }
    let prevLamport = 0
    const oids = new Set<string>()
    let count = 0
    const named: {ref: ArtifactRef; id: string; commit: string}[] = []
    try {
      for await (const commits of store.laneCommitChunks(tip)) {
        for (const c of commits) oids.add(c.oid)
        const r = await checkChunk(ref, lane, commits, prevLamport, named)
        prevLamport = r.lamport
        count += r.records
      }
    } catch (e) {
      problems.push(problem('lane-unreadable', `cannot walk the lane's history: ${(e as Error).message.split('\n')[0]}`, {ref, commit: tip}))
      continue
    }
    await checkArtifacts(ref, parseCommit(o.data, tip).tree, named)
    const s = seenTips[ref]
    if (s && s.tip !== tip && !oids.has(s.tip)) {
      problems.push(problem('lane-rewound', rewoundMessage(ref, s, tip, count), {ref, commit: tip}))
    }
    onProgress?.(records, lane)
  }
  for (const [ref, s] of Object.entries(seenTips)) {
    if (!tips.has(ref) && !bad.some(b => b.ref === ref)) problems.push(problem('lane-rewound', deletedMessage(ref, s), {ref, commit: s.tip}))
  }
  // the lanes whose own records cite each conflicting id
  const citing = new Map<string, Set<string>>()
  for (const {id, cites, ref, lane, commit} of all) {
    for (const c of cites) {
      if (!seen.has(c)) problems.push(problem('dangling-cite', `dangling cite: ${c} is not on any lane`, {ref, commit, id}))
      else if (conflicts.has(c)) {
        let lanes = citing.get(c)
        if (!lanes) citing.set(c, (lanes = new Set()))
        lanes.add(lane)
      }
    }
  }
  for (const [id, copies] of conflicts) problems.push(...conflictProblems(id, copies, citing.get(id)))
  const ledger = new Ledger(entries, e => decodeRecord((e as MemEntry).bytes, e.id), problems.map(p => ({...p, ref: p.ref ?? ''})), undefined, es => es.map(e => (e as MemEntry).bytes))
  return {report: {lanes, records, problems}, ledger}

  /** Every artifact a record names is in the lane tree (artifacts are never removed) and hashes to its digest. */
  async function checkArtifacts(ref: string, tree: string, named: {ref: ArtifactRef; id: string; commit: string}[]): Promise<void> {
    if (!named.length) return
    const found = await lookupPaths(store.reader, tree, [...new Set(named.map(n => n.ref.path))])
    for (const n of named) {
      const at = {ref, commit: n.commit, path: n.ref.path, id: n.id}
      const f = found.get(n.ref.path)
      if (!f) {
        problems.push(problem('artifact-missing', `artifact ${n.ref.name} (${n.ref.path}) is not in the lane tree`, at))
        continue
      }
      // (no more than the size the record names is read)
      const [bytes] = await store.reader.readMany([f.oid], undefined, n.ref.size)
      if (bytes instanceof ObjectTooLarge) problems.push(problem('artifact-digest', `artifact ${n.ref.name} is ${bytes.size} bytes, not the ${n.ref.size} its record names`, at))
      else if (bytes instanceof Error) problems.push(problem('artifact-missing', `artifact ${n.ref.name}: ${bytes.message}`, at))
      else if (!artifactMatches(n.ref, bytes)) problems.push(problem('artifact-digest', `artifact ${n.ref.name} does not hash to ${n.ref.digest.slice(0, 19)}… (or its size is not ${n.ref.size})`, at))
    }
  }

  async function checkChunk(ref: string, lane: string, commits: LaneCommit[], prevLamport: number, named: {ref: ArtifactRef; id: string; commit: string}[]): Promise<{lamport: number; records: number}> {
    const info = parseLaneRef(ref)!
    const located = commits.map(c => recordChange(c))
    const got = await store.reader.readMany(
      located.flatMap(l => ('blob' in l ? [l.blob] : [])),
      undefined,
      ceiling,
    )
    let gi = 0
    let n = 0
    const at = (c: LaneCommit, path: string | undefined, id: string | undefined) => ({ref, commit: c.oid, path, id})
    for (const [k, c] of commits.entries()) {
      const loc = located[k]!
      if ('problem' in loc) {
        problems.push(problem(loc.problem.code, loc.problem.message, at(c, loc.path, undefined)))
        continue
      }
      const bytes = got[gi++]!
      if (bytes instanceof Error) {
        problems.push(unreadable(loc.blob, bytes, at(c, loc.path, loc.id)))
        continue
      }
      // git answers an object id with the bytes it finds under it, unchecked: an object file
      // rewritten in place (a keyed record's other bytes pass every check of the bytes alone)
      // was read as the record. The reads take it as git gives it; fsck checks every id.
      if (gitBlobId(bytes) !== loc.blob) {
        problems.push(problem('record-unreadable', `object ${loc.blob} does not hash to its id: its file was changed in place (\`git fsck\` names it hash-mismatch)`, at(c, loc.path, loc.id)))
        continue
      }
      const checked = checkRecordBytes(bytes, {lane, kind: loc.kind, id: loc.id, lamport: loc.lamport})
      for (const f of checked.problems ?? []) problems.push(problem(f.code, f.message, at(c, loc.path, loc.id)))
      const record = checked.ok?.record ?? checked.record
      if (!record) continue
      // (checkRecordBytes proves the bytes are the one canonical form of the record, as every read does)
      let good = !!checked.ok
      const stray = unnamedArtifacts(loc, record)
      if (stray.length) {
        problems.push(problem('commit-changes', `the commit adds ${stray.join(', ')}, which its record does not name`, at(c, stray[0], record.id)))
        good = false
      }
      for (const a of record.artifacts ?? []) named.push({ref: a, id: record.id, commit: c.oid})
      const digest = good ? record.digest : recordDigest(record)
      if (good) {
        records++
        n++
      }
      if (record.lamport <= prevLamport) problems.push(problem('lamport-order', `lamport ${record.lamport} is not greater than the previous record's ${prevLamport} on this lane`, at(c, loc.path, record.id)))
      prevLamport = Math.max(prevLamport, record.lamport)
      const other = seen.get(record.id)
      const here = {digest, ref, lane, commit: c.oid, path: loc.path}
      if (other && other.digest !== digest) {
        const copies = conflicts.get(record.id)
        if (copies) copies.push(here)
        else conflicts.set(record.id, [other, here])
      }
      if (!other) seen.set(record.id, here)
      if (record.cites.length) all.push({id: record.id, cites: record.cites, ref, lane, commit: c.oid})
      if (!good) continue
      const facts = encodeFacts(record)
      entries.push({id: record.id, kind: record.kind, digest: record.digest, lane, ref, private: info.private, lamport: record.lamport, commit: c.oid, cites: record.cites, ...(facts ? {facts} : {}), bytes})
    }
    return {lamport: prevLamport, records: n}
  }
}

/**
 * The problems of an id two lanes hold with other content (`copies`, the first one seen first).
 * A copy on a lane none of whose records cite the id, when another lane's copy is cited by
 * that lane's own records, is a foreign copy (another lane writing under a key this lane wrote,
 * or a forgery, at a lower Lamport clock or under a lane name that sorts first): it is the one
 * named, with the lane it conflicts with; the trust checks take each lane's own copy
 * (store/own.ts, citedEntry). Otherwise each copy after the first is named, as before.
 */
function conflictProblems(id: string, copies: readonly {digest: string; ref: string; lane: string; commit: string; path: string}[], citing: ReadonlySet<string> | undefined): Problem[] {
  const owned = copies.filter(x => citing?.has(x.lane))
  const foreign = copies.filter(x => !citing?.has(x.lane) && !owned.some(o => o.digest === x.digest))
  if (owned.length && foreign.length) {
    const owners = [...new Set(owned.map(o => o.lane))].join(', ')
    return foreign.map(x => problem('duplicate-id', `a foreign copy of ${id}: lane ${x.lane} holds it with other content than the record lane ${owners} wrote under that id and whose own records cite it (the same id, a different digest); no record of lane ${x.lane} cites it, and the trust checks of lane ${owners}'s records take that lane's own copy`, {ref: x.ref, commit: x.commit, path: x.path, id}))
  }
  return copies.slice(1).map(x => problem('duplicate-id', `duplicate id with a different digest (also on ${copies[0]!.ref})`, {ref: x.ref, commit: x.commit, path: x.path, id}))
}

/** Check every record on every lane from history alone (the report of fsckStore). */
export async function fsck(store: GitRecordStore, onProgress?: (done: number, lane: string) => void): Promise<FsckReport> {
  return (await fsckStore(store, onProgress)).report
}

export function formatProblem(p: FsckProblem): string {
  return formatOne(p)
}

export type {StoreProblemCode}
