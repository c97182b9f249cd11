import type {CollectionName, Sequences, WorldState} from './types.js'

/**
 * Immutable updates of the world state. A tool never mutates a record in place: it
 * replaces the record and its collection, so every state object ever handed out stays
 * valid (the runner keeps the initial state for the grader) and unchanged collections
 * keep their identity, which is what makes the per-collection digest cache work.
 */
export class Tx {
  private current: WorldState
  private iso?: string

  constructor(
    state: WorldState,
    /** the simulated time of this action (ms since the epoch) */
    private readonly at: number,
  ) {
    this.current = state
  }

  /** The simulated time of this action (ISO UTC), formatted only when a tool records it. */
  get now(): string {
    return (this.iso ??= new Date(this.at).toISOString())
  }

  get state(): WorldState {
    return this.current
  }

  get<C extends CollectionName>(collection: C): WorldState[C] {
    return this.current[collection]
  }

  /** Replace (or add) one record of a keyed collection. */
  put<C extends Exclude<CollectionName, 'settings' | 'seq'>>(collection: C, id: string, record: WorldState[C][string]): void {
    const next = {...this.current[collection], [id]: Object.freeze(record)} as WorldState[C]
    this.current = {...this.current, [collection]: next}
  }

  /** Allocate the next id of a sequence, e.g. `TCK-0201`. */
  nextId(seq: keyof Sequences, prefix: string): string {
    const n = this.current.seq[seq]
    this.current = {...this.current, seq: {...this.current.seq, [seq]: n + 1}}
    return `${prefix}-${String(n).padStart(4, '0')}`
  }
}

/** Freeze a value and everything inside it (fixtures and initial states are shared across episodes). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v)
  }
  return value
}

/** Split a dotted path (`workflows.WF-1031.status`); numeric segments index arrays. */
const splitCache = new Map<string, readonly string[]>()

export function splitPath(path: string): readonly string[] {
  let segs = splitCache.get(path)
  if (!segs) {
    segs = path === '' ? [] : path.split('.')
    // paths come from scenario files: a bounded set, but never let the cache grow without end
    if (splitCache.size > 10_000) splitCache.clear()
    splitCache.set(path, segs)
  }
  return segs
}

/**
 * The value at a dotted path, or undefined when any step is missing. Own properties only: a
 * scenario's `settings.constructor` or `x.__proto__` is missing, not what every object
 * inherits (lint refuses such paths; a run that was not linted reads them as missing too).
 */
export function getPath(root: unknown, path: string | readonly string[]): unknown {
  let v: unknown = root
  for (const seg of typeof path === 'string' ? splitPath(path) : path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, seg)) return undefined
    v = (v as Record<string, unknown>)[seg]
  }
  return v
}
