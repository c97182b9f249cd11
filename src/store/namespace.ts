import {ExpError} from '../errors/index.js'
import type {Ledger} from './ledger.js'
import type {AppendOptions, AppendResult, RecordStore} from './port.js'
import {validateLane} from './lanes.js'

/**
 * A namespace of lanes (an `exp compare` arm, docs/compare.md): the lane named `name` and
 * every lane `name.<suffix>`. Membership is by lane name (the ref a record was written to),
 * never by anything a record says about itself: a record on another lane that claims to
 * belong here is not here.
 */
export function inNamespace(name: string, lane: string): boolean {
  return lane === name || lane.startsWith(`${name}.`)
}

const NAMESPACE = Symbol('exp.namespace')

/** The namespace a store was restricted to, if it was. */
export function namespaceOf(store: RecordStore): string | undefined {
  return (store as unknown as {[NAMESPACE]?: string})[NAMESPACE]
}

/**
 * The same store, seen from inside a namespace: `ledger()` holds only the records of its
 * lanes (so knowledge, claims, proposals and decisions of other namespaces do not exist for
 * whoever reads through it), `lanes()` lists only its lanes, and an append to a lane outside
 * it is refused before anything is written; one that finds its record already on a lane of
 * another namespace is an error (E_CONFLICT), never a silent share. Everything else is the
 * store itself.
 */
export function namespaced<T extends RecordStore>(store: T, name: string): T {
  validateLane(name, 'namespace')
  const views = new WeakMap<Ledger, Ledger>()
  const check = (o: AppendOptions) => {
    if (!inNamespace(name, o.lane)) throw new ExpError('E_USAGE', `lane ${o.lane} is outside namespace ${name}: nothing was written`, {hint: `append on ${name} or ${name}.<suffix>`, data: {lane: o.lane, namespace: name}})
  }
  // a record only lanes outside the namespace hold is written here too (AppendOptions.within: a
  // copy another clone published under another lane name kept a compare from ever recording
  // it); this check is what would say so aloud if a store did not
  const shared = (results: AppendResult[]) => {
    const out = results.find(r => r.status === 'exists' && !inNamespace(name, r.lane))
    if (out) throw new ExpError('E_CONFLICT', `record ${out.id} already exists on lane ${out.lane}, outside namespace ${name}: it would not be part of this namespace`, {hint: 'records of a namespace must name it (a manifest pins its namespace); report this as a bug', data: {id: out.id, lane: out.lane, namespace: name}})
    return results
  }
  const overrides: Partial<RecordStore> & {[NAMESPACE]: string} = {
    [NAMESPACE]: name,
    ledger: async opts => {
      const full = await store.ledger(opts)
      let view = views.get(full)
      if (!view) views.set(full, (view = full.restrict(e => inNamespace(name, e.lane))))
      return view
    },
    lanes: async () => (await store.lanes()).filter(l => inNamespace(name, l.lane)),
    append: async (draft, o) => {
      check(o)
      return shared([await store.append(draft, {...o, within: l => inNamespace(name, l)})])[0]!
    },
    appendBatch: async (drafts, o) => {
      check(o)
      return shared(await store.appendBatch(drafts, {...o, within: l => inNamespace(name, l)}))
    },
  }
  return new Proxy(store, {
    get(target, prop) {
      if (Object.prototype.hasOwnProperty.call(overrides, prop)) return (overrides as Record<PropertyKey, unknown>)[prop]
      const v = Reflect.get(target, prop, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
}
