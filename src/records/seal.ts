import {canonicalJson, normalizeJson} from './canonical.js'
import {identify, normalizeCites} from './identity.js'
import {schemaTag} from './kinds.js'
import {assertBody, checkRecord} from './validate.js'
import {SchemaError, CorruptObjectError} from '../errors/index.js'
import type {ExpRecord, RecordDraft} from './types.js'

export interface Prepared {
  draft: RecordDraft
  id: string
  digest: string
}

/** Validate a draft and compute its id and digest (pure: no lane, clock or store involved). */
export function prepare(draft: RecordDraft, file?: string): Prepared {
  const clean: RecordDraft = normalizeJson({...draft, cites: normalizeCites(draft.cites)})
  assertBody(clean.kind, clean.body, file)
  return {draft: clean, ...identify(clean)}
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
    body: d.body,
    ...(d.volatile === undefined ? {} : {volatile: d.volatile}),
  } as ExpRecord
  const problems = checkRecord(rec)
  if (problems.length) throw new SchemaError(`${d.kind} record`, problems)
  return rec
}

/** The bytes of a record file: its canonical JSON on one line. */
export function encodeRecord(rec: ExpRecord): Buffer {
  return Buffer.from(canonicalJson(rec) + '\n', 'utf8')
}

/** Parse record bytes; throws CorruptObjectError naming `where` when they are not JSON. */
export function decodeRecord(buf: Buffer | string, where: string): ExpRecord {
  try {
    return JSON.parse(typeof buf === 'string' ? buf : buf.toString('utf8')) as ExpRecord
  } catch (e) {
    throw new CorruptObjectError('record', `${where}: not valid JSON (${(e as Error).message})`, {where})
  }
}
