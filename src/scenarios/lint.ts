import {TOOL_NAMES} from '../world/catalog.js'
import {OverrideError} from '../world/initial.js'
import {checkState} from '../world/schema.js'
import {getPath} from '../world/state.js'
import {COLLECTIONS, type WorldState} from '../world/types.js'
import {replayGold} from './gold.js'
import {checkIds, loadWithSealed, type LoadedFile} from './load.js'
import {initialStateOf} from './state.js'
import type {Problem, Scenario} from './types.js'
import type {Invariant} from '../evals/grader/types.js'
import {lineOf, type LocatedYaml} from './yaml.js'
import {unsealedHeldOut, type UnsealedHeldOut} from './holdout.js'

/**
 * The scenario linter: schema (done while loading), then what a schema cannot see — ids
 * and file names, overrides that apply to the fixture and leave a well-formed world,
 * tools that exist, paths that lead somewhere, and a gold trajectory that succeeds call
 * by call and passes the grader. Every problem carries the line it is about.
 */
export interface LintReport {
  dir: string
  files: number
  scenarios: number
  problems: Problem[]
  /** the sealed held-out file: how many scenarios it holds, and whether they were opened (with the key) and linted */
  sealed?: {files: number; opened: boolean}
  /** plain files that hold held-out tasks in the clear: held-out-looking files that do not parse, valid ones beside a sealed file */
  unsealed?: UnsealedHeldOut[]
}

const TOOLS = new Set(TOOL_NAMES)
const ROOTS = new Set<string>(COLLECTIONS)

export async function lintScenarios(dir: string, key?: Buffer): Promise<LintReport> {
  const {loaded, sealed} = await loadWithSealed(dir, key)
  const unsealed = await unsealedHeldOut(loaded, !!sealed)
  return {dir, files: loaded.length, scenarios: loaded.filter(l => l.scenario).length, problems: lintLoaded(loaded), ...(sealed ? {sealed} : {}), ...(unsealed.length ? {unsealed} : {})}
}

export function lintLoaded(files: readonly LoadedFile[]): Problem[] {
  const problems: Problem[] = []
  // (an id that is not its file's name, or another file's: named by checkIds, as a run names it)
  for (const f of checkIds(files)) {
    problems.push(...f.problems)
    if (!f.scenario || !f.yaml) continue
    const at = (p: (string | number)[], message: string) => problems.push({file: f.file, line: lineOf(f.yaml!, p), message})
    const s = f.scenario
    // a prototype key reads what every object inherits (`settings.constructor` always exists)
    // or sets an object's prototype (`merge: {settings: {__proto__: …}}`): refused, with the
    // rest of the file's checks left out (they would read through it)
    if (checkPrototypeKeys(s, at)) continue
    const initial = buildInitial(s, f.yaml, at)
    if (!initial) continue
    checkReferences(s, initial, at)
    checkGold(s, at)
  }
  return problems
}

type At = (p: (string | number)[], message: string) => void

/** Keys no path step or merged object may name: they reach Object.prototype, not the state. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

const protoStep = (path: string): string | undefined => path.split('.').find(seg => PROTOTYPE_KEYS.has(seg))

/**
 * Prototype keys in override paths, merged and set objects, and invariant paths (collections,
 * order references, `where` keys, nested invariants): each reported at its line. True when
 * there was any.
 */
function checkPrototypeKeys(s: Scenario, at: At): boolean {
  let found = false
  const bad = (where: (string | number)[], what: string, key: string) => {
    found = true
    at(where, `${what} names "${key}", which is not state but every object's prototype: an invariant on it always holds, a merge through it changes what an object inherits; use a real field`)
  }
  const path = (p: string, where: (string | number)[], what: string) => {
    const k = protoStep(p)
    if (k) bad(where, `${what} "${p}"`, k)
  }
  const keys = (v: unknown, where: (string | number)[], what: string): void => {
    if (v === null || typeof v !== 'object') return
    if (Array.isArray(v)) return v.forEach((x, i) => keys(x, [...where, i], what))
    for (const [k, x] of Object.entries(v)) {
      if (PROTOTYPE_KEYS.has(k)) bad([...where, k], what, k)
      else keys(x, [...where, k], what)
    }
  }
  for (const op of ['merge', 'set'] as const) {
    for (const [p, v] of Object.entries(s.initial[op] ?? {})) {
      path(p, ['initial', op, p], `${op} path`)
      keys(v, ['initial', op, p], `${op} object`)
    }
  }
  ;(s.initial.remove ?? []).forEach((p, i) => path(p, ['initial', 'remove', i], 'remove path'))
  const invariant = (inv: Invariant, where: (string | number)[]): void => {
    if ('exactly_one_of' in inv) return inv.exactly_one_of.forEach((x, j) => invariant(x, [...where, 'exactly_one_of', j]))
    if ('none_of' in inv) return inv.none_of.forEach((x, j) => invariant(x, [...where, 'none_of', j]))
    const whereKeys = (w: Record<string, unknown> | undefined, at2: (string | number)[]) => {
      for (const k of Object.keys(w ?? {})) path(k, [...at2, 'where', k], 'where key')
    }
    if ('order' in inv) {
      for (const side of ['first', 'then'] as const) {
        const ref = inv.order[side]
        if ('path' in ref) path(ref.path, [...where, 'order', side, 'path'], 'order path')
        else {
          path(ref.collection, [...where, 'order', side, 'collection'], 'order collection')
          path(ref.field, [...where, 'order', side, 'field'], 'order field')
          whereKeys(ref.where, [...where, 'order', side])
        }
      }
    } else if ('collection' in inv) {
      path(inv.collection, [...where, 'collection'], 'collection')
      whereKeys(inv.where, where)
    } else path(inv.path, [...where, 'path'], 'path')
  }
  s.invariants.forEach((inv, i) => invariant(inv, ['invariants', i]))
  return found
}

function buildInitial(s: Scenario, y: LocatedYaml, at: At): WorldState | undefined {
  let state: WorldState
  try {
    state = initialStateOf(s)
  } catch (e) {
    if (!(e instanceof OverrideError)) throw e
    const where = e.op === 'fixture' ? ['initial', 'fixture'] : e.op === 'remove' ? ['initial', 'remove', (s.initial.remove ?? []).indexOf(e.path)] : ['initial', e.op, e.path]
    at(where, `${e.op === 'fixture' ? '' : `${e.op} ${e.path}: `}${e.message}`)
    return undefined
  }
  const bad = checkState(state)
  for (const p of bad) at(overrideFor(s, p.path), `initial state: ${p.path} ${p.message}`)
  void y
  return bad.length ? undefined : state
}

/** The override key that produced a state path (the longest prefix), for the line number. */
function overrideFor(s: Scenario, statePath: string): (string | number)[] {
  let best: (string | number)[] = ['initial']
  let len = -1
  for (const op of ['merge', 'set'] as const) {
    for (const key of Object.keys(s.initial[op] ?? {})) {
      if ((statePath === key || statePath.startsWith(`${key}.`) || key.startsWith(`${statePath}.`)) && key.length > len) {
        best = ['initial', op, key]
        len = key.length
      }
    }
  }
  return best
}

function checkReferences(s: Scenario, initial: WorldState, at: At): void {
  s.scope.employees.forEach((e, i) => {
    if (!initial.employees[e]) at(['scope', 'employees', i], `scope employee ${e} does not exist in the initial state`)
  })
  s.invariants.forEach((inv, i) => checkInvariantPaths(inv, ['invariants', i], initial, at))
  const tool = (name: string, where: (string | number)[]) => {
    if (!TOOLS.has(name)) at(where, `unknown tool "${name}"`)
  }
  s.constraints.forEach((c, i) => {
    if ('before' in c) {
      tool(c.before.first, ['constraints', i, 'before', 'first'])
      tool(c.before.then, ['constraints', i, 'before', 'then'])
    } else if ('never' in c) tool(typeof c.never === 'string' ? c.never : c.never.tool, ['constraints', i, 'never'])
    else if ('called' in c) tool(typeof c.called === 'string' ? c.called : c.called.tool, ['constraints', i, 'called'])
    else if ('max_calls' in c && typeof c.max_calls === 'object') tool(c.max_calls.tool, ['constraints', i, 'max_calls', 'tool'])
  })
  s.gold.forEach((g, i) => tool(g.tool, ['gold', i, 'tool']))
}

/** Every path an invariant reads must start with a collection; collections must exist (nested forms too). */
function checkInvariantPaths(inv: Invariant, where: (string | number)[], initial: WorldState, at: At): void {
  const root = (p: string, key: (string | number)[]) => {
    if (ROOTS.has(p.split('.')[0]!)) return true
    at(key, `"${p}" does not start with a state collection (${COLLECTIONS.join(', ')})`)
    return false
  }
  const collection = (c: string, key: (string | number)[]) => {
    if (root(c, key) && typeof getPath(initial, c) !== 'object') at(key, `"${c}" is not a collection or list in the initial state`)
  }
  if ('exactly_one_of' in inv) inv.exactly_one_of.forEach((x, j) => checkInvariantPaths(x, [...where, 'exactly_one_of', j], initial, at))
  else if ('none_of' in inv) inv.none_of.forEach((x, j) => checkInvariantPaths(x, [...where, 'none_of', j], initial, at))
  else if ('order' in inv) {
    for (const side of ['first', 'then'] as const) {
      const ref = inv.order[side]
      if ('path' in ref) root(ref.path, [...where, 'order', side, 'path'])
      else collection(ref.collection, [...where, 'order', side, 'collection'])
    }
  } else if ('collection' in inv) collection(inv.collection, [...where, 'collection'])
  else root(inv.path, [...where, 'path'])
}

function checkGold(s: Scenario, at: At): void {
  if (s.gold.some(g => !TOOLS.has(g.tool))) return
  const {actions, verdict} = replayGold(s)
  actions.forEach((a, i) => {
    if (!a.ok) at(['gold', i], `gold call ${a.tool} fails: ${a.error?.code} ${a.error?.message}`)
  })
  verdict.invariants.forEach((r, i) => {
    if (!r.passed) at(['invariants', i], `gold trajectory fails invariant ${r.id}: ${r.message}`)
  })
  for (const c of verdict.collateral) at(['scope'], `gold trajectory causes collateral damage: ${c.path} ${c.message}`)
  for (const v of verdict.constraint_violations) at(['constraints', s.constraints.findIndex(c => c.id === v.constraint)], `gold trajectory violates ${v.constraint}: ${v.message}`)
}
