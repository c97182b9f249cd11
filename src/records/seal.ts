import {canonicalJson} from './canonical.js'
import {digestSubject, normalizeCites, recordId} from './identity.js'
import {sha256Hex} from './digest.js'
import {schemaTag} from './kinds.js'
import {assertBody, checkEnvelope} from './validate.js'
import {SchemaError, CorruptObjectError, InvalidInputError} from '../errors/index.js'
import type {ExpRecord, RecordDraft} from './types.js'
import type {ArtifactRef} from './types.generated.js'
import {artifactRefs} from './artifacts.js'
import {MAX_DEPTH, nestedDeeper} from './depth.js'

export interface Prepared {
  draft: RecordDraft
  id: string
  digest: string
  /** canonical JSON of the body, kept so sealing and encoding never canonicalize it again */
  bodyJson: string
  /** the draft's artifacts: their references (in the record) and their content (blobs beside it) */
  artifacts?: {ref: ArtifactRef; content: Uint8Array}[]
}

// Drafts are treated as immutable once prepared: a runner that identifies a trace (to cite
// it from its verification) and then appends it pays for canonical JSON and validation once.
const memo = new WeakMap<object, Prepared>()

/**
 * Refuse a value nested deeper than MAX_DEPTH, or one that holds itself (a YAML alias inside
 * its own anchor, `text: &a [*a]`): every walk of it would recurse until the stack ran out —
 * "Maximum call stack size exceeded … this is unexpected", and no file or field named.
 * An explicit stack: this walk does not recurse.
 */
function refuseDeep(value: unknown, file: string | undefined, field: string): void {
  if (!nestedDeeper(value, MAX_DEPTH)) return
  const where = file ? `${file}: ` : ''
  throw new InvalidInputError(`${where}${field} is nested more than ${MAX_DEPTH} levels deep, or holds itself (a YAML alias inside its own anchor)`, {...(file ? {file} : {}), field}, 'flatten the structure; a record is data for people and tools to read, not a tree of that depth')
}

/** Validate a draft and compute its id and digest (pure: no lane, clock or store involved). */
export function prepare(draft: RecordDraft, file?: string): Prepared {
  const hit = memo.get(draft)
  if (hit) return hit
  const cites = normalizeCites(draft.cites)
  // one canonical serialization of the body gives the digest subject (keys sorted: body
  // first, after the artifacts when there are any) and, parsed back, the normalized body
  if (draft.body === undefined) assertBody(draft.kind, undefined, file)
  refuseDeep(draft.body, file, 'body')
  if (draft.volatile !== undefined) refuseDeep(draft.volatile, file, 'volatile')
  const bodyJson = canonicalJson(draft.body)
  const refs = draft.artifacts?.length ? artifactRefs(draft.artifacts, file ? `${file}: artifacts` : 'artifacts') : undefined
  const {body: _body, artifacts: _artifacts, ...rest} = digestSubject({kind: draft.kind, key: draft.key, cites, body: undefined}) as {body: unknown; artifacts?: unknown}
  const subjectJson = `{${refs ? `"artifacts":${canonicalJson(refs)},` : ''}"body":${bodyJson},${canonicalJson(rest).slice(1)}`
  const clean: RecordDraft = {kind: draft.kind, body: JSON.parse(bodyJson) as RecordDraft['body'], cites}
  if (draft.key !== undefined) clean.key = draft.key
  if (draft.volatile !== undefined) clean.volatile = JSON.parse(canonicalJson(draft.volatile)) as Record<string, unknown>
  assertBody(clean.kind, clean.body, file)
  const digest = `sha256:${sha256Hex(subjectJson)}`
  const p: Prepared = {draft: clean, id: recordId(clean.kind, digest, clean.key), digest, bodyJson}
  if (refs) p.artifacts = refs.map((ref, i) => ({ref, content: draft.artifacts![i]!.content}))
  memo.set(draft, p)
  return p
}

/** Seal a prepared draft into a full record for one lane at one lamport time. */
export function seal(p: Prepared, at: {lane: string; lamport: number; createdAt: string}): ExpRecord {
  const d = p.draft
  const rec = {
    schema: schemaTag(d.kind),
    kind: d.kind,
    id: p.id,
    ...(d.key === undefined ? {} : {key: d.key}),
    digest: p.digest,
    lane: at.lane,
    lamport: at.lamport,
    created_at: at.createdAt,
    cites: [...(d.cites ?? [])],
    ...(p.artifacts ? {artifacts: p.artifacts.map(a => a.ref)} : {}),
    body: d.body,
    ...(d.volatile === undefined ? {} : {volatile: d.volatile}),
  } as ExpRecord
  // the body was validated by prepare(); the envelope is checked here
  const problems = checkEnvelope(rec)
  if (problems.length) throw new SchemaError(`${d.kind} record`, problems)
  sealedBody.set(rec, p.bodyJson)
  return rec
}

const sealedBody = new WeakMap<object, string>()

/**
 * The bytes of a record file: its canonical JSON on one line. For records sealed in this
 * process the body's canonical JSON is reused (keys sorted: body comes first).
 */
export function encodeRecord(rec: ExpRecord): Buffer {
  const bodyJson = sealedBody.get(rec)
  if (bodyJson === undefined) return Buffer.from(canonicalJson(rec) + '\n', 'utf8')
  const {body: _body, artifacts, ...rest} = rec as ExpRecord & {body: unknown}
  const tail = canonicalJson(rest)
  const head = artifacts ? `{"artifacts":${canonicalJson(artifacts)},"body":` : '{"body":'
  return Buffer.from(`${head}${bodyJson}${tail.length > 2 ? `,${tail.slice(1)}` : '}'}\n`, 'utf8')
}

/** Parse record bytes; throws CorruptObjectError naming `where` when they are not JSON. */
export function decodeRecord(buf: Buffer | string, where: string): ExpRecord {
  try {
    return JSON.parse(typeof buf === 'string' ? buf : buf.toString('utf8')) as ExpRecord
  } catch (e) {
    throw new CorruptObjectError('record', `${where}: not valid JSON (${(e as Error).message})`, {where})
  }
}
