import {assertKind, decodeUtf8, parseJsonLines, parseYamlOrJson, prepare, type ArtifactInput, type Kind, type RecordDraft} from '../records/index.js'
import {InvalidInputError, NotFoundError, isExpError, ExpError} from '../errors/index.js'
import type {AppendResult, RecordStore} from './port.js'
import {refuseSecrets} from './secrets.js'
import {clipped} from '../errors/shown.js'

export interface AppendTextOptions {
  file: string
  kind?: string
  batch?: boolean
  lane: string
  private?: boolean
  cites?: string[]
  key?: string
  /** files stored beside the record as artifacts (not with batch) */
  artifacts?: ArtifactInput[]
}

/**
 * Turn one document into a draft. A document with a top-level `body` is a draft
 * ({kind?, body, cites?, key?, volatile?}); anything else is the body of `kind`.
 */
export function toDraft(doc: unknown, kind: string | undefined, where: string): RecordDraft {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new InvalidInputError(`${where}: a record body must be a mapping (object)`, {where}, 'write the record as YAML or JSON fields, e.g. text: looks flaky (docs/commands.md, exp append)')
  const o = doc as Record<string, unknown>
  if ('body' in o) {
    const extra = Object.keys(o).filter(k => !['kind', 'body', 'cites', 'key', 'volatile'].includes(k))
    if (extra.length) throw new InvalidInputError(`${where}: unknown draft field ${extra[0]} (a draft has kind, body, cites, key, volatile)`, {where})
    const k = (o.kind as string | undefined) ?? kind
    if (!k) throw new InvalidInputError(`${where}: no kind given (pass KIND or set "kind" in the draft)`, {where})
    if (kind && o.kind && o.kind !== kind) throw new InvalidInputError(`${where}: draft kind ${String(o.kind)} differs from KIND ${kind}`, {where})
    return {kind: assertKind(k), body: o.body as never, cites: o.cites as string[] | undefined, key: o.key as string | undefined, volatile: o.volatile as Record<string, unknown> | undefined}
  }
  if (!kind) throw new InvalidInputError(`${where}: no kind given (pass KIND, or write drafts with "kind" and "body")`, {where})
  return {kind: assertKind(kind) as Kind, body: o as never}
}

const ID_RE = /^[a-z]{2}-[0-9a-f]{24}$/

/**
 * Ids given with --cite must name records this clone has: a typo would otherwise become a
 * dangling cite for good (records never change). Cites written inside a draft may name
 * records of other clones not synced yet; `exp fsck` reports those that stay dangling.
 */
export async function checkCiteFlags(store: RecordStore, cites: readonly string[]): Promise<void> {
  if (!cites.length) return
  for (const c of cites) if (!ID_RE.test(c)) throw new InvalidInputError(`--cite ${JSON.stringify(clipped(c))} is not a record id (two letters, a dash, 24 hex digits)`, {flag: 'cite', id: c}, 'copy the id from `exp ledger`')
  const ledger = await store.ledger()
  for (const c of cites) if (!ledger.has(c)) throw new NotFoundError('record id', `${c} (given with --cite)`, 'list ids with `exp ledger`; sync first if it was recorded in another clone')
}

/** Parse, validate every record first (nothing is written when one is bad), then append. */
export async function appendFromText(store: RecordStore, input: string | Uint8Array, o: AppendTextOptions): Promise<AppendResult[]> {
  const text = typeof input === 'string' ? input : decodeUtf8(input, o.file)
  const docs = o.batch ? parseJsonLines(text, o.file) : [{line: 0, value: await parseYamlOrJson(text, o.file)}]
  if (!docs.length) throw new InvalidInputError(`${o.file}: no records to append`, {file: o.file})
  const drafts = docs.map(({line, value}) => {
    const where = line ? `${o.file}:${line}` : o.file
    try {
      const d = toDraft(value, o.kind, where)
      if (o.cites?.length) d.cites = [...(d.cites ?? []), ...o.cites]
      if (o.key !== undefined) d.key = o.key
      if (o.artifacts?.length) d.artifacts = [...(d.artifacts ?? []), ...o.artifacts]
      refuseSecrets([prepare(d, where)])
      return d
    } catch (e) {
      if (isExpError(e) && !e.message.startsWith(where)) throw new ExpError(e.code, `${where}: ${e.message}`, {data: e.data, hint: e.hint})
      throw e
    }
  })
  return store.appendBatch(drafts, {lane: o.lane, private: o.private})
}
