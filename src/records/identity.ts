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
export function parseRecordPath(path: string): {dir: string; shard: string; id: string} | undefined {
  const m = PATH_RE.exec(path)
  return m ? {dir: m[1]!, shard: m[2]!, id: m[3]!} : undefined
}
