import {hash} from 'node:crypto'
import {isAscii, isUtf8} from 'node:buffer'
import {canonicalJson, checkRecord, recordDigest, recordId, schemaTag, type ExpRecord, type Kind} from '../../records/index.js'
import {KINDS} from '../../records/kinds.js'
import {canonicalBytes} from '../../records/canonical-bytes.js'
import type {StoreProblemCode} from '../problems.js'

/**
 * Checks of a record file's bytes, without serializing the record again.
 *
 * A record file is the canonical JSON of the record (keys sorted) and a newline. Its digest
 * covers the canonical JSON of {artifacts?, body, cites, key?, kind, schema}; sorted, those
 * keys begin the record file in the same order, up to and including `cites`. So the digest
 * subject is the file's own prefix (everything before `"created_at"`) followed by
 * `"key":…,"kind":…,"schema":…}`: one hash of bytes already in memory proves that the body
 * and cites are exactly what the digest names. The envelope after the prefix is small and
 * is compared field by field. A file that is not canonical JSON is refused (exp never
 * writes one): bytes hashed as they are could otherwise carry the same key twice, which
 * readers resolve differently, under a digest computed over exactly those bytes.
 */

/** What a record file must agree with: its commit's trailers and the lane it sits on. */
export interface Expected {
  lane: string
  kind: string
  id: string
  lamport?: number
}

export interface CheckedRecord {
  record: ExpRecord
  /** byte offset where the envelope tail (`"created_at":…`) starts; the digest covers what is before */
  pre: number
}

/**
 * The envelope fields after `cites`, in canonical order, as canonical JSON (`"created_at":…}`,
 * without the opening brace). Called after the schema check: created_at, digest, id, kind,
 * lane and schema match patterns of plain ASCII that JSON writes as they are; only the key
 * and volatile need the serializer.
 */
function envelopeTail(r: ExpRecord): string {
  const {key, volatile} = r as ExpRecord & {key?: string; volatile?: unknown}
  return `"created_at":"${r.created_at}","digest":"${r.digest}","id":"${r.id}",${key === undefined ? '' : `"key":${JSON.stringify(key)},`}"kind":"${r.kind}","lamport":${r.lamport},"lane":"${r.lane}","schema":"${r.schema}"${volatile === undefined ? '' : `,"volatile":${canonicalJson(volatile)}`}}`
}

/** `"key":…,"kind":…,"schema":…}`: what follows the file's prefix in the digest subject. */
function subjectSuffix(kind: string, schema: string, key: string | undefined): string {
  return `${key === undefined ? '' : `"key":${JSON.stringify(key)},`}"kind":${JSON.stringify(kind)},"schema":${JSON.stringify(schema)}}`
}

function sortedUnique(cites: readonly string[]): boolean {
  for (let i = 1; i < cites.length; i++) if (!(cites[i - 1]! < cites[i]!)) return false
  return true
}

function citesSegment(cites: readonly string[]): string {
  return `"cites":${JSON.stringify(cites)},`
}

/**
 * Check the bytes of a record file read from history: UTF-8, JSON, schema, canonical form,
 * digest, id derivation, and agreement with the commit's trailers and the lane.
 */
export interface Finding {
  code: StoreProblemCode
  message: string
}

/** `ok` when the file passed; otherwise its problems, and the record when it parsed and fits its schema. */
export type CheckResult = {ok: CheckedRecord; record?: undefined; problems?: undefined} | {ok?: undefined; record?: ExpRecord; problems: Finding[]}

const NOT_CANONICAL = 'record file is not in canonical JSON form (each key once and in order, no spaces, escapes and numbers as JSON.stringify writes them): its bytes are not the one form of the record its digest names'

export function checkRecordBytes(bytes: Buffer, expect: Expected): CheckResult {
  try {
    return checkBytes(bytes, expect)
  } catch (e) {
    // whatever a record file does to the checks (a `volatile` nested thousands deep overflowed
    // the serializer's stack), it is this record's problem, never its lane's or the command's
    return {problems: [{code: 'record-invalid', message: `record file could not be checked (${(e as Error).message ?? String(e)})`}]}
  }
}

function checkBytes(bytes: Buffer, expect: Expected): CheckResult {
  const bad = (code: StoreProblemCode, message: string) => ({problems: [{code, message}]})
  // (ASCII, most records, is valid UTF-8: one scan instead of two)
  const ascii = isAscii(bytes)
  if (!ascii && !isUtf8(bytes)) return bad('record-invalid', 'record file is not valid UTF-8')
  const text = ascii ? bytes.toString('latin1') : bytes.toString('utf8')
  let record: ExpRecord
  try {
    record = JSON.parse(text) as ExpRecord
  } catch (e) {
    return bad('record-invalid', `record file is not valid JSON (${(e as Error).message})`)
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return bad('record-invalid', 'record file is not a JSON object')
  const schema = checkRecord(record)
  if (schema.length) return {problems: schema.map(p => ({code: 'record-invalid', message: `schema: ${p.path || '(root)'} ${p.message}`}))}
  const problems: Finding[] = []
  const mismatch = (message: string) => problems.push({code: 'record-mismatch', message})
  if (record.id !== expect.id) mismatch(`record id ${record.id} does not match its path/trailer ${expect.id}`)
  if (record.kind !== expect.kind) mismatch(`record kind ${record.kind} does not match trailer ${expect.kind}`)
  if (expect.lamport !== undefined && record.lamport !== expect.lamport) mismatch(`lamport ${record.lamport} does not match Exp-Lamport ${expect.lamport}`)
  if (record.lane !== expect.lane) mismatch(`record says lane ${record.lane} but sits on lane ${expect.lane}`)
  if (problems.length) return {record, problems}
  const tail = `${envelopeTail(record)}\n`
  const pre = bytes.length - Buffer.byteLength(tail)
  const cites = citesSegment(record.cites)
  const canonicalTail = text.endsWith(tail) && bytes[pre - 1] === 0x2c && text.startsWith(cites, text.length - tail.length - cites.length) && sortedUnique(record.cites)
  const key = (record as {key?: string}).key
  // the one form of the record (canonical-bytes.ts): bytes hashed as they are must not mean
  // anything else to another reader (a key twice, `1.0`, a space would pass the hash below).
  // Scanned up to `pre`: what follows is the envelope, equal to its canonical rendering above
  const canonical = canonicalTail && (canonicalBytes(bytes, pre, ascii) ?? `${canonicalJson(record)}\n` === text)
  if (!canonical || !record.digest.endsWith(hashSubject(bytes, pre, record.kind, record.schema, key))) {
    const digest = recordDigest(record)
    if (digest === record.digest || !canonical) problems.push({code: 'record-not-canonical', message: NOT_CANONICAL})
    else problems.push({code: 'record-digest', message: `digest mismatch: stored ${record.digest.slice(0, 19)}…, content hashes to ${digest.slice(0, 19)}…`})
  }
  const id = recordId(record.kind, record.digest, key)
  if (id !== record.id) problems.push({code: 'record-id', message: `id ${record.id} is not derived from its ${key === undefined ? 'content' : 'key'} (expected ${id})`})
  if (problems.length) return {record, problems}
  return {ok: {record, pre}}
}

/** What the cache index claims about a record, to be checked against the bytes it points to. */
export interface IndexedRecord {
  id: string
  kind: Kind
  digest: string
  lamport: number
  lane: string
  cites: readonly string[]
  /** the record's created_at */
  created: string
  /** bytes of the digest-covered prefix */
  pre: number
}

/** subjectSuffix of unkeyed records, by kind and schema tag (the same bytes for every record of a kind) */
const SUFFIX = new Map<string, Map<string, Buffer>>()
let scratch = Buffer.allocUnsafe(64 * 1024)

/**
 * sha256 (hex) of the digest subject: `bytes[0, pre)` followed by subjectSuffix(kind, schema,
 * key), in one call over a reused buffer. The suffix is written there directly (a keyed
 * record's differs from every other's: no string or buffer of it is made per record).
 */
function hashSubject(bytes: Buffer, pre: number, kind: string, schema: string, key: string | undefined): string {
  let bySchema = SUFFIX.get(kind)
  if (!bySchema) SUFFIX.set(kind, (bySchema = new Map()))
  let tail = bySchema.get(schema)
  if (!tail) bySchema.set(schema, (tail = Buffer.from(subjectSuffix(kind, schema, undefined), 'utf8')))
  const keyJson = key === undefined ? undefined : `"key":${JSON.stringify(key)},`
  // (a UTF-8 byte per UTF-16 unit at most 3)
  const most = pre + (keyJson === undefined ? 0 : keyJson.length * 3) + tail.length
  if (scratch.length < most) scratch = Buffer.allocUnsafe(Math.max(most, scratch.length * 2))
  bytes.copy(scratch, 0, 0, pre)
  let n = pre
  if (keyJson !== undefined) n += scratch.write(keyJson, n, 'utf8')
  n += tail.copy(scratch, n)
  return hash('sha256', scratch.subarray(0, n), 'hex')
}

/** Whether bytes[at, at + s.length) are the char codes of s (bytes read as latin1 equal s), for one record's check. */
function eqAt(bytes: Buffer, at: number, s: string): boolean {
  const n = s.length
  if (at < 0 || at + n > bytes.length) return false
  for (let i = 0; i < n; i++) if (bytes[at + i] !== s.charCodeAt(i)) return false
  return true
}

/** Whether bytes[at, at + digits) are `value` in decimal, as JSON writes it; the number of digits, or -1. */
function numberAt(bytes: Buffer, at: number, value: number): number {
  // digits read from the bytes (no string of the number per record): as JSON writes an
  // integer, with no leading zero
  let n = 0
  let k = at
  for (; k < bytes.length && k - at < 16; k++) {
    const c = bytes[k]! - 0x30
    if (c < 0 || c > 9) break
    n = n * 10 + c
  }
  const digits = k - at
  if (digits === 0 || (digits > 1 && bytes[at] === 0x30) || !Number.isSafeInteger(value) || value < 0) return -1
  return n === value ? digits : -1
}

const NO_CITES = '"cites":[],'
const ENVELOPE = 'the record envelope differs from the index'

/**
 * sha256 (hex) of the digest subject of cache bytes, hashed where they lie: the key's segment
 * as it stands in the envelope at bytes[from, to) (`"key":"…",`, already the canonical JSON of
 * a plain printable ASCII key; empty for none) and the suffix after it are written over the
 * start of the envelope (which is longer), hashed with the prefix, and the envelope's bytes
 * put back; no copy of the prefix is made. Undefined when the subject does not fit in place.
 */
function hashInPlace(bytes: Buffer, pre: number, from: number, to: number, tail: Buffer): string | undefined {
  const klen = to - from
  const len = klen + tail.length
  if (pre + len > bytes.length || from < pre) return undefined
  if (saved.length < len) saved = Buffer.allocUnsafe(Math.max(len, saved.length * 2))
  copyBytes(bytes, pre, saved, 0, len)
  try {
    if (klen) bytes.copyWithin(pre, from, to)
    copyBytes(tail, 0, bytes, pre + klen, tail.length)
    return hash('sha256', bytes.subarray(0, pre + len), 'hex')
  } finally {
    copyBytes(saved, 0, bytes, pre, len)
  }
}
let saved = Buffer.allocUnsafe(256)

/** n bytes from src[s] to dst[d] (the records' few dozen: a loop costs less than Buffer.copy's call) */
function copyBytes(src: Buffer, s: number, dst: Buffer, d: number, n: number): void {
  for (let i = 0; i < n; i++) dst[d + i] = src[s + i]!
}

/** `key\0<kind>\0` of recordId's keyed hash, by kind */
const KEY_HEAD = new Map<string, Buffer>()
let keyScratch = Buffer.allocUnsafe(256)

/** Whether `id` is recordId(kind, digest, key) for the plain ASCII key at bytes[from, to), hashed from the bytes. */
function idOfKeyAt(id: string, kind: Kind, bytes: Buffer, from: number, to: number): boolean {
  if (!idHead(id, kind)) return false
  let head = KEY_HEAD.get(kind)
  if (!head) KEY_HEAD.set(kind, (head = Buffer.from(`key\0${kind}\0`, 'utf8')))
  const n = head.length + to - from
  if (keyScratch.length < n) keyScratch = Buffer.allocUnsafe(Math.max(n, keyScratch.length * 2))
  copyBytes(head, 0, keyScratch, 0, head.length)
  copyBytes(bytes, from, keyScratch, head.length, to - from)
  const hex = hash('sha256', keyScratch.subarray(0, n), 'hex')
  for (let i = 0; i < 24; i++) if (id.charCodeAt(3 + i) !== hex.charCodeAt(i)) return false
  return true
}

function unkeyedSuffix(kind: string, schema: string): Buffer {
  let bySchema = SUFFIX.get(kind)
  if (!bySchema) SUFFIX.set(kind, (bySchema = new Map()))
  let tail = bySchema.get(schema)
  if (!tail) bySchema.set(schema, (tail = Buffer.from(subjectSuffix(kind, schema, undefined), 'utf8')))
  return tail
}

/** Whether `id` has the shape of an id of `kind`: its two-letter prefix, a dash, 24 more characters. */
function idHead(id: string, kind: Kind): boolean {
  const prefix = KINDS[kind]?.prefix
  return prefix?.length === 2 && id.length === 27 && id.charCodeAt(2) === 0x2d && id.startsWith(prefix)
}

/** Whether `id` is the unkeyed id of `digest`: the kind's prefix, a dash, the digest's first 24 hex digits (recordId, without making it). */
function idOfDigest(id: string, kind: Kind, digest: string): boolean {
  if (!idHead(id, kind) || digest.length !== 71) return false
  for (let i = 0; i < 24; i++) if (id.charCodeAt(3 + i) !== digest.charCodeAt(7 + i)) return false
  return true
}

/**
 * Check bytes read from the projection cache against the index line that points to them:
 * the digest over the prefix (body and cites), the envelope after it byte for byte, and the
 * id derivation. Returns the reason of the first mismatch, or undefined when they agree.
 * The cache is derived data anyone can edit: nothing it holds is returned unchecked.
 * (`volatile`, which no digest covers, is the one part not compared.) The bytes are compared
 * where they lie, without strings made of them (a warm `exp ledger --json` checks 100,000).
 */
export function verifyCachedBytes(bytes: Buffer, e: IndexedRecord): string | undefined {
  const n = bytes.length
  const pre = e.pre
  if (!(pre > 8 && pre < n - 2) || bytes[pre - 1] !== 0x2c || bytes[n - 1] !== 0x0a || bytes[n - 2] !== 0x7d) return 'the record bytes are not where the index says'
  const schema = schemaTag(e.kind)
  // the envelope after the prefix, as exp writes it: created_at, digest, id, key?, kind,
  // lamport, lane, schema, volatile?
  let at = pre
  // (each field read once: a cache entry makes some of them from its index line when asked)
  const {created, digest, id, kind} = e
  if (!eqAt(bytes, at, '"created_at":"') || !eqAt(bytes, (at += 14), created) || !eqAt(bytes, (at += created.length), '","digest":"')) return ENVELOPE
  if (!eqAt(bytes, (at += 12), digest) || !eqAt(bytes, (at += digest.length), '","id":"') || !eqAt(bytes, (at += 8), id) || !eqAt(bytes, (at += id.length), '",')) return ENVELOPE
  at += 2
  let key: string | undefined
  /** where `"key":"…",` stands in the envelope, when the key is plain printable ASCII (its JSON is itself in quotes) */
  let plainKey: [number, number] | undefined
  if (eqAt(bytes, at, '"key":')) {
    // a key is a JSON string: find its closing quote, then read it as JSON (it may be escaped or non-ASCII)
    let q = at + 7
    let plain = bytes[at + 6] === 0x22
    for (; q < n && bytes[q] !== 0x22; q += bytes[q] === 0x5c ? 2 : 1) if (bytes[q]! < 0x20 || bytes[q]! > 0x7e || bytes[q] === 0x5c) plain = false
    if (bytes[q + 1] !== 0x2c) return ENVELOPE
    if (plain && q < n) plainKey = [at, q + 2]
    else {
      try {
        key = JSON.parse(bytes.toString('utf8', at + 6, q + 1)) as string
      } catch {
        return 'the record key is not a JSON string'
      }
    }
    at = q + 2
  }
  if (!eqAt(bytes, at, '"kind":"') || !eqAt(bytes, (at += 8), e.kind) || !eqAt(bytes, (at += e.kind.length), '","lamport":')) return ENVELOPE
  const digits = numberAt(bytes, (at += 12), e.lamport)
  if (digits < 0 || !eqAt(bytes, (at += digits), ',"lane":"') || !eqAt(bytes, (at += 9), e.lane) || !eqAt(bytes, (at += e.lane.length), '","schema":"')) return ENVELOPE
  if (!eqAt(bytes, (at += 12), schema) || bytes[(at += schema.length)] !== 0x22) return ENVELOPE
  at += 1
  if (!(at === n - 2 || eqAt(bytes, at, ',"volatile":{'))) return ENVELOPE
  const list = e.cites
  const cites = list.length ? citesSegment(list) : NO_CITES
  if (!eqAt(bytes, pre - cites.length, cites)) return 'the cites differ from the index'
  const [from, to] = plainKey ?? [pre, pre]
  const tail = key === undefined ? unkeyedSuffix(kind, schema) : Buffer.from(subjectSuffix(kind, schema, key), 'utf8')
  let subject = hashInPlace(bytes, pre, from, to, tail)
  if (subject === undefined) {
    if (plainKey) key = bytes.toString('latin1', from + 7, to - 2)
    subject = hashSubject(bytes, pre, kind, schema, key)
  }
  // sha256:<the subject's 64 hex digits> (an index and a data file edited alike to say `md5xxx:…` were believed)
  if (digest.length !== 71 || !digest.startsWith('sha256:') || !digest.endsWith(subject)) return 'the record bytes do not hash to its digest'
  const derived = plainKey ? idOfKeyAt(id, kind, bytes, from + 7, to - 2) : key === undefined ? idOfDigest(id, kind, digest) : recordId(kind, digest, key) === id
  if (!derived) return 'the id is not derived from the digest'
  return undefined
}
