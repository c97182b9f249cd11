import {KINDS, schemaTag, type Kind} from './kinds.js'
import {sha256Hex} from './digest.js'
import {canonicalJson} from './canonical.js'
import type {RecordDraft} from './types.js'
import type {ArtifactRef} from './types.generated.js'
import {artifactRefs} from './artifacts.js'

export const ID_HEX = 24

/**
 * The part of a record its digest covers. Lane, lamport, created_at, volatile measurements
 * and the id itself are excluded, so re-running the same work yields the same digest.
 */
export function digestSubject(d: DigestFields): unknown {
  // artifacts only when present: the digests of records without any stay what they were
  return {schema: d.schema ?? schemaTag(d.kind), kind: d.kind, key: d.key, cites: normalizeCites(d.cites), body: d.body, artifacts: d.artifacts?.length ? d.artifacts : undefined}
}

/** What a digest covers: schema, kind, key, cites, body and the artifact references. */
export interface DigestFields {
  kind: Kind
  body: unknown
  cites?: readonly string[]
  key?: string
  schema?: string
  artifacts?: readonly ArtifactRef[]
}

export function normalizeCites(cites: readonly string[] | undefined): string[] {
  return [...new Set(cites ?? [])].sort()
}

export function recordDigest(d: DigestFields): string {
  return `sha256:${sha256Hex(canonicalJson(digestSubject(d)))}`
}

/**
 * A key salted with a lane. A keyed record's id names no lane, so another lane can hold the id
 * of a record this lane will write (a forged record, another lane's run of the same
 * experiment, one planted under a guessable key); the lane then writes, and finds, its own
 * under this key (the episode runner, a contract's runs, an evolve run's notes).
 */
export function laneKey(key: string, lane: string): string {
  return `${key}@${lane}`
}

/** id = kind prefix + 24 hex: of sha256("key\0kind\0key") when keyed, else of the content digest. */
export function recordId(kind: Kind, digest: string, key?: string): string {
  const hex = key === undefined ? digest.slice('sha256:'.length) : sha256Hex(`key\0${kind}\0${key}`)
  return `${KINDS[kind].prefix}-${hex.slice(0, ID_HEX)}`
}

export function identify(d: RecordDraft): {id: string; digest: string} {
  const digest = recordDigest({...d, artifacts: d.artifacts && artifactRefs(d.artifacts)})
  return {id: recordId(d.kind, digest, d.key), digest}
}

/** Path of a record inside a lane tree: <kind dir>/<2 hex shard>/<id>.json */
export function recordPath(kind: Kind, id: string): string {
  return `${KINDS[kind].dir}/${id.slice(3, 5)}/${id}.json`
}

const PATH_RE = /^([a-z]+\/[a-z]+)\/([0-9a-f]{2})\/([a-z]{2}-[0-9a-f]{24})\.json$/

/** each kind by its id prefix as two bytes (b0 << 8 | b1), with its folder as bytes */
const BY_PREFIX_BYTES = new Map(Object.entries(KINDS).map(([kind, k]) => [(k.prefix.charCodeAt(0) << 8) | k.prefix.charCodeAt(1), {kind: kind as Kind, dir: Buffer.from(k.dir, 'latin1')}]))
/** `/xx/` + id + `.json`: the bytes of a record path after its kind's folder */
const PATH_TAIL = 1 + 2 + 1 + 3 + ID_HEX + 5

/**
 * The id of the record whose own path (recordPath) is `buf[from, to)`, or undefined when those
 * bytes are any other path. The same answer as parseRecordPath followed by the checks that the
 * folder is the id's kind's and the shard the id's, read from bytes: a full read of a large lane
 * takes the paths of its tree's 100,000 files this way without decoding each one and matching it
 * against a pattern (test/records/identity.test.ts holds the two to the same answers).
 */
export function recordIdAtPath(buf: Buffer, from: number, to: number): string | undefined {
  const at = to - PATH_TAIL
  if (at <= from) return undefined
  const id = at + 4
  const k = BY_PREFIX_BYTES.get((buf[id]! << 8) | buf[id + 1]!)
  if (!k || k.dir.length !== at - from || buf[at] !== 0x2f || buf[at + 3] !== 0x2f || buf[id + 2] !== 0x2d) return undefined
  for (let i = 0; i < k.dir.length; i++) if (buf[from + i] !== k.dir[i]) return undefined
  for (let i = id + 3; i < id + 3 + ID_HEX; i++) {
    const c = buf[i]!
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return undefined
  }
  // the shard is the id's first two hex digits; then `.json`
  if (buf[at + 1] !== buf[id + 3] || buf[at + 2] !== buf[id + 4]) return undefined
  const end = id + 3 + ID_HEX
  if (buf[end] !== 0x2e || buf[end + 1] !== 0x6a || buf[end + 2] !== 0x73 || buf[end + 3] !== 0x6f || buf[end + 4] !== 0x6e) return undefined
  return buf.toString('latin1', id, end)
}
export function parseRecordPath(path: string): {dir: string; shard: string; id: string} | undefined {
  const m = PATH_RE.exec(path)
  return m ? {dir: m[1]!, shard: m[2]!, id: m[3]!} : undefined
}
