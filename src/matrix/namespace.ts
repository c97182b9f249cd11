import {createHash} from 'node:crypto'
import type {Kind, RecordDraft} from '../records/index.js'
import type {Ledger, LedgerEntry, RecordStore} from '../store/index.js'

/**
 * An experiment's namespace (docs/matrix.md): one skill source of `exp matrix` evolves on its
 * own lane (`<prefix>-<slug>-<start>`), its own main (`refs/exp/<prefix>/<start>/<slug>/main`)
 * and its own proposal branches (`exp/proposal/<prefix>/<start>/<slug>/<id>`), where `<start>`
 * abbreviates main's commit it started from, and sees only its own knowledge:
 * manifests, evidence, knowledge, recalls, hypotheses, proposals, decisions and claims of
 * other lanes are left out of every ledger it reads. Traces, verifications and evaluations
 * stay visible: their ids are derived from manifests that pin the agent and the skill, so
 * they can only be reused where the identity is the same.
 */
export interface Namespace {
  /** the spec it was made from */
  spec: string
  slug: string
  lane: string
  mainRef: string
  /** ProposeOptions.namespace */
  proposals: string
}

/** Kinds a namespace keeps to itself. */
const PRIVATE_KINDS: ReadonlySet<Kind> = new Set<Kind>(['manifest', 'evidence', 'knowledge', 'recall', 'hypothesis', 'proposal', 'decision', 'claim', 'release'])

/** A slug of an agent spec safe in lane and ref names, unique per spec (a digest suffix). */
export function slugOf(spec: string): string {
  const base = spec.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'agent'
  return `${base}-${createHash('sha256').update(spec).digest('hex').slice(0, 8)}`
}

/**
 * The namespace of one agent spec in an experiment started from main at `start`: a new start
 * (main moved: a new skill, a new policy) is a new namespace, so nothing learned from another
 * start leaks in, and the same start is resumed.
 */
export function namespaceOf(prefix: string, spec: string, start: string): Namespace {
  const slug = slugOf(spec)
  const at = start.slice(0, 8)
  return {spec, slug, lane: `${prefix}-${slug}-${at}`, mainRef: `refs/exp/${prefix}/${at}/${slug}/main`, proposals: `${prefix}/${at}/${slug}`}
}

/**
 * The store as a namespace sees it: appends go through unchanged; every ledger is filtered
 * to what the namespace may see. A record this view appended is visible even when its id was
 * already on another lane (content-derived ids: the same record, written once).
 */
export function scopedStore(store: RecordStore, ns: Namespace): RecordStore {
  const own = new Set<string>()
  const keep = (e: LedgerEntry) => e.lane === ns.lane || own.has(e.id) || !PRIVATE_KINDS.has(e.kind)
  let last: {from: Ledger; own: number; view: Ledger} | undefined
  const view = (l: Ledger) => {
    // an append that found its record on another lane moves no tip: the same ledger, one more own id
    if (last?.from !== l || last.own !== own.size) last = {from: l, own: own.size, view: l.filter(keep)}
    return last.view
  }
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'ledger') return async (...args: Parameters<RecordStore['ledger']>) => view(await target.ledger(...args))
      if (prop === 'append')
        return async (draft: RecordDraft, opts: Parameters<RecordStore['append']>[1]) => {
          const r = await target.append(draft, opts)
          own.add(r.id)
          return r
        }
      if (prop === 'appendBatch')
        return async (drafts: readonly RecordDraft[], opts: Parameters<RecordStore['appendBatch']>[1]) => {
          const rs = await target.appendBatch(drafts, opts)
          for (const r of rs) own.add(r.id)
          return rs
        }
      const v = Reflect.get(target, prop, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
}
