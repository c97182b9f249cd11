import {recordDigest, recordId} from '../../records/index.js'
import type {LaneCommit} from './log.js'
import {parseLaneRef} from '../lanes.js'
import type {GitRecordStore} from './store.js'
import {recordChange, checkStoredRecord} from './verify.js'

export interface FsckProblem {
  ref: string
  commit?: string
  path?: string
  id?: string
  message: string
}

export interface FsckReport {
  lanes: number
  records: number
  problems: FsckProblem[]
}

/**
 * Check every record on every lane from history alone (the cache is not trusted): schema,
 * digest, id derivation, id/path/trailer agreement, one added file per commit, Lamport
 * monotonicity along each lane, duplicate ids with different digests, dangling cites.
 */
export async function fsck(store: GitRecordStore, onProgress?: (done: number, lane: string) => void): Promise<FsckReport> {
  const problems: FsckProblem[] = []
  const seen = new Map<string, {digest: string; ref: string}>()
  const all: {id: string; cites: readonly string[]; ref: string; commit: string}[] = []
  const tips = await store.laneTips()
  let records = 0
  const current = {ref: '', lane: ''}
  for (const [ref, tip] of tips) {
    if (!tip) continue
    const lane = parseLaneRef(ref)!.lane
    current.ref = ref
    current.lane = lane
    let prevLamport = 0
    try {
      for await (const commits of store.laneCommitChunks(tip)) {
        prevLamport = await checkChunk(commits, prevLamport)
      }
    } catch (e) {
      problems.push({ref, commit: tip, message: `cannot walk the lane's history: ${(e as Error).message.split('\n')[0]}`})
      continue
    }
    onProgress?.(records, lane)
  }
  for (const {id, cites, ref, commit} of all) {
    for (const c of cites) if (!seen.has(c)) problems.push({ref, commit, id, message: `dangling cite: ${c} is not on any lane`})
  }
  return {lanes: [...tips.values()].filter(Boolean).length, records, problems}

  async function checkChunk(commits: LaneCommit[], prevLamport: number): Promise<number> {
    const ref = current.ref
    const lane = current.lane
    const located = commits.map(c => recordChange(c))
    const got = await store.reader.readMany(located.flatMap(l => ('blob' in l ? [l.blob] : [])))
    let gi = 0
    for (const [k, c] of commits.entries()) {
      const loc = located[k]!
      if ('problem' in loc) {
        problems.push({ref, commit: c.oid, path: loc.path, message: loc.problem})
        continue
      }
      const bytes = got[gi++]!
      if (bytes instanceof Error) {
        problems.push({ref, commit: c.oid, path: loc.path, id: loc.id, message: `unreadable object ${loc.blob}: ${bytes.message}`})
        continue
      }
      const {record, problems: bad} = checkStoredRecord(bytes, c, {lane, ...loc})
      for (const message of bad) problems.push({ref, commit: c.oid, path: loc.path, id: loc.id, message})
      if (!record) continue
      records++
      const digest = recordDigest(record)
      if (digest !== record.digest) problems.push({ref, commit: c.oid, path: loc.path, id: record.id, message: `digest mismatch: stored ${record.digest.slice(0, 19)}…, content hashes to ${digest.slice(0, 19)}…`})
      const id = recordId(record.kind, digest, record.key)
      if (id !== record.id) problems.push({ref, commit: c.oid, path: loc.path, id: record.id, message: `id ${record.id} is not derived from its ${record.key === undefined ? 'content' : 'key'} (expected ${id})`})
      if (record.lamport <= prevLamport) problems.push({ref, commit: c.oid, path: loc.path, id: record.id, message: `lamport ${record.lamport} is not greater than the previous record's ${prevLamport} on this lane`})
      prevLamport = Math.max(prevLamport, record.lamport)
      const other = seen.get(record.id)
      if (other && other.digest !== digest) problems.push({ref, commit: c.oid, path: loc.path, id: record.id, message: `duplicate id with a different digest (also on ${other.ref})`})
      if (!other) seen.set(record.id, {digest, ref})
      if (record.cites.length) all.push({id: record.id, cites: record.cites, ref, commit: c.oid})
    }
    return prevLamport
  }
}

export function formatProblem(p: FsckProblem): string {
  return `${p.ref}${p.commit ? ` ${p.commit.slice(0, 12)}` : ''}${p.path ? ` ${p.path}` : ''}: ${p.message}`
}
