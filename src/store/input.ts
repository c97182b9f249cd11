import {assertKind, parseJsonLines, parseYamlOrJson, prepare, type Kind, type RecordDraft} from '../records/index.js'
import {InvalidInputError, isExpError, ExpError} from '../errors/index.js'
import type {AppendResult, RecordStore} from './port.js'

export interface AppendTextOptions {
  file: string
  kind?: string
  batch?: boolean
  lane: string
  private?: boolean
  cites?: string[]
  key?: string
}

/**
 * Turn one document into a draft. A document with a top-level `body` is a draft
 * ({kind?, body, cites?, key?, volatile?}); anything else is the body of `kind`.
 */
export function toDraft(doc: unknown, kind: string | undefined, where: string): RecordDraft {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new InvalidInputError(`${where}: a record body must be a mapping (object)`, {where})
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

/** Parse, validate every record first (nothing is written when one is bad), then append. */
export async function appendFromText(store: RecordStore, text: string, o: AppendTextOptions): Promise<AppendResult[]> {
  const docs = o.batch ? parseJsonLines(text, o.file) : [{line: 0, value: await parseYamlOrJson(text, o.file)}]
  if (!docs.length) throw new InvalidInputError(`${o.file}: no records to append`, {file: o.file})
  const drafts = docs.map(({line, value}) => {
    const where = line ? `${o.file}:${line}` : o.file
    try {
      const d = toDraft(value, o.kind, where)
      if (o.cites?.length) d.cites = [...(d.cites ?? []), ...o.cites]
      if (o.key !== undefined) d.key = o.key
      prepare(d, where)
      return d
    } catch (e) {
      if (isExpError(e) && !e.message.startsWith(where)) throw new ExpError(e.code, `${where}: ${e.message}`, {data: e.data, hint: e.hint})
      throw e
    }
  })
  return store.appendBatch(drafts, {lane: o.lane, private: o.private})
}
