import {ExpError} from '../errors/base.js'
import {fixture, FIXTURE_NAMES} from './fixtures/index.js'
import {deepFreeze, splitPath} from './state.js'
import type {WorldState} from './types.js'

/**
 * A scenario's initial state: a base fixture plus declarative overrides, applied in a
 * fixed order — `merge` (deep-merge an object into a record, creating it if absent),
 * then `set` (replace one value), then `remove` (delete one key). Every path's parent
 * must already exist, so a typo fails loudly instead of creating a stray branch.
 */
export interface InitialSpec {
  fixture: string
  merge?: Record<string, unknown>
  set?: Record<string, unknown>
  remove?: string[]
}

/** An override that does not apply to its fixture; `op` and `path` say which one. */
export class OverrideError extends ExpError {
  constructor(
    readonly op: 'fixture' | 'merge' | 'set' | 'remove',
    readonly path: string,
    message: string,
  ) {
    super('E_INVALID_INPUT', message, {data: {op, path}, hint: 'run `exp scenarios lint` to see the file and line of the override'})
    this.name = 'OverrideError'
  }
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)
/** Lists are addressed by index (`blockers.0.status`); they are copied like objects. */
const isNode = (v: unknown): v is Obj => v !== null && typeof v === 'object'
const copy = (v: Obj): Obj => (Array.isArray(v) ? ([...v] as unknown as Obj) : {...v})

function deepMerge(base: unknown, patch: unknown): unknown {
  if (!isObj(base) || !isObj(patch)) return patch
  const out: Obj = {...base}
  for (const [k, v] of Object.entries(patch)) out[k] = deepMerge(base[k], v)
  return out
}

/** Copy-on-write update of the value at `segs`; `fn` gets the old value (undefined if absent). */
function update(root: Obj, segs: readonly string[], op: OverrideError['op'], path: string, fn: (old: unknown, parent: Obj, key: string) => Obj, depth = 0): Obj {
  const head = segs[depth]
  if (head === undefined || head === '') throw new OverrideError(op, path, 'empty path segment')
  if (depth === segs.length - 1) return fn(root[head], root, head)
  const child = root[head]
  if (!isNode(child)) throw new OverrideError(op, path, `"${segs.slice(0, depth + 1).join('.')}" is not an object or list in the state`)
  const next = copy(root)
  next[head] = update(child, segs, op, path, fn, depth + 1)
  return next
}

export function applyOverrides(base: WorldState, spec: Omit<InitialSpec, 'fixture'>): WorldState {
  let s = base as unknown as Obj
  for (const [path, value] of Object.entries(spec.merge ?? {})) {
    s = update(s, splitPath(path), 'merge', path, (old, parent, key) => Object.assign(copy(parent), {[key]: deepMerge(old, value)}))
  }
  for (const [path, value] of Object.entries(spec.set ?? {})) {
    s = update(s, splitPath(path), 'set', path, (_old, parent, key) => Object.assign(copy(parent), {[key]: value}))
  }
  for (const path of spec.remove ?? []) {
    s = update(s, splitPath(path), 'remove', path, (old, parent, key) => {
      if (old === undefined) throw new OverrideError('remove', path, 'nothing to remove at this path')
      if (Array.isArray(parent)) return parent.filter((_, i) => String(i) !== key) as unknown as Obj
      const {[key]: _gone, ...restOf} = parent
      return restOf
    })
  }
  return s as unknown as WorldState
}

/** Build and freeze the initial state of a spec; throws OverrideError naming the bad path. */
export function buildInitialState(spec: InitialSpec): WorldState {
  const base = fixture(spec.fixture)
  if (!base) throw new OverrideError('fixture', spec.fixture, `unknown fixture "${spec.fixture}" (known: ${FIXTURE_NAMES.join(', ')})`)
  return deepFreeze(applyOverrides(base, spec))
}
