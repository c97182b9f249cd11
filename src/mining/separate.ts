import type {Condition, Rule} from '../knowledge/index.js'
import {broke, unexplainedRuns} from './explain.js'
import {atomKey, atomsAt, occurrences} from './facts.js'
import type {Context} from './judge.js'
import {tally, type Tally} from './score.js'
import type {Steps} from './steps.js'
import {byIdOf} from './calls.js'
import type {View} from './types.js'

/**
 * An exception in the form that reads best: "unless … includes" and "unless … is V" stay
 * exceptions; "unless … does not include / is empty / is not empty" say the same as a plain
 * condition on the other test (a condition whose read is unknown never holds either way).
 */
function exception(a: Condition): {when?: Condition[]; unless?: Condition[]} {
  const flip: Partial<Record<Condition['test'], Condition['test']>> = {excludes: 'includes', empty: 'not_empty', not_empty: 'empty'}
  const other = flip[a.test]
  return other ? {when: [{...a, test: other}]} : {unless: [a]}
}

const atomMemo = new WeakMap<Context, WeakMap<View, Map<string, ReadonlyMap<string, Condition>>>>()

const sources = new WeakMap<ReadonlyMap<string, Condition>, Set<string>>()
/** The reads a run's atoms come from (known there). */
function sourcesOf(m: ReadonlyMap<string, Condition>): Set<string> {
  let set = sources.get(m)
  if (!set) sources.set(m, (set = new Set([...m.values()].map(a => a.source))))
  return set
}

export interface Variant {
  rule: Rule
  tally: Tally
  /** counterexamples of the rule without the condition that the condition leaves out */
  excluded: string[]
}

/** Atoms of conditions that read best, first: a category (`is`), a list holding the item (an exception reads better than its negation), a count, emptiness. */
const PREFERENCE: Record<Condition['test'], number> = {is: 0, includes: 1, excludes: 1.75, above: 2, empty: 3, not_empty: 3, is_not: 4}
const MAX_TRIED = 16
/** A `when` condition must be borne out, and an `unless` exception seen, in this many tasks: one task's coincidences are not a situation. */
export const MIN_TASKS = 2

/**
 * The narrowest conditions that separate a rule's supporting runs from its unexplained
 * counterexamples (docs/mining.md, "Conditions"): one atom about the result of a read, as
 * `when` (it holds where the rule is borne out, never where it is refuted) or `unless` (it
 * holds wherever the rule is refuted). Each is checked by judging every run again; a variant
 * is kept when its conditions leave no counterexample unexplained and it still has `minSupport`
 * supporting runs. A `when` condition must hold in every task where the rule visibly makes the
 * difference (there, runs following it passed and runs breaking it failed, and no other kept
 * rule explains the failure), and there must be two such tasks at least; an `unless`
 * exception in none of those tasks, and refuting runs of two tasks at least. Anything else is a
 * coincidence of the tasks at hand. Variants about different situations (supports that do not
 * overlap) are all returned, the one keeping most supporting runs first.
 */
export function* separateSteps(rule: Rule, base: Tally, refuted: readonly string[], views: readonly View[], ctx: Context, o: {minSupport: number}, others: readonly Rule[]): Steps<Variant[]> {
  const byId = byIdOf(views)
  const atomsOf = (id: string) => {
    const v = byId.get(id)!
    const occ = occurrences(rule, v, ctx)
    // the same places of a run are read for every rule about the same tools: once per run and places
    const key = occ.map(x => (x.at < v.calls.length ? String(x.at) : `${x.at}${JSON.stringify(x.args)}`)).join(',')
    let memo = atomMemo.get(ctx)
    if (!memo) atomMemo.set(ctx, (memo = new WeakMap()))
    let byKey = memo.get(v)
    if (!byKey) memo.set(v, (byKey = new Map()))
    let out = byKey.get(key)
    if (!out) {
      const atoms = new Map<string, Condition>()
      for (const x of occ) for (const a of atomsAt(v, x.at, x.args, ctx)) atoms.set(atomKey(a), a)
      byKey.set(key, (out = atoms))
    }
    return out
  }
  const support: ReadonlyMap<string, Condition>[] = []
  for (const id of base.supporting) {
    support.push(atomsOf(id))
    yield
  }
  const against = refuted.map(atomsOf)
  // the tasks where the rule visibly makes the difference (runs following it passed, runs breaking it
  // failed): a condition that does not hold in every one of them is a coincidence of the tasks at hand
  const taskOf = new Map([...byId].map(([id, v]) => [id, v.task]))
  const tasks = (ids: readonly string[]) => new Set(ids.map(id => taskOf.get(id)!))
  const fp = tasks(base.followedPassed)
  // …where a run that broke it and failed broke no other kept rule (else that rule explains the task)
  const clean = base.violatedFailed.filter(id => !others.some(r => broke(r, byId.get(id)!, ctx)))
  const strong = [...tasks(clean)].filter(x => fp.has(x))
  // an exception is a situation too: seen refuting the rule in one task only, it is that task's coincidence
  const refutedTasks = tasks(refuted).size
  const atoms = new Map<string, Condition>()
  for (const m of [...support, ...against]) for (const [k, a] of m) atoms.set(k, a)
  // a list that never holds the item says nothing about it
  const holding = new Set([...atoms.values()].filter(a => a.test === 'includes').map(a => `${a.source}.${a.field}@${a.arg}`))
  // Which supporting runs hold each atom, and which know each read: every atom was tested
  // against every run, and "its read is known" listed a run's atoms again for each (atoms² ×
  // runs); now each run's atoms are visited once, and the rest is counted.
  const holders = new Map<string, number[]>()
  const knowers = new Map<string, number[]>()
  for (const [x, m] of support.entries()) {
    for (const k of m.keys()) {
      let list = holders.get(k)
      if (!list) holders.set(k, (list = []))
      list.push(x)
    }
    for (const source of sourcesOf(m)) {
      let list = knowers.get(source)
      if (!list) knowers.set(source, (list = []))
      list.push(x)
    }
  }
  const refuting = new Map<string, number>()
  for (const m of against) for (const k of m.keys()) refuting.set(k, (refuting.get(k) ?? 0) + 1)
  const tried: {when?: Condition[]; unless?: Condition[]; score: number; pref: number; key: string}[] = []
  for (const [k, a] of atoms) {
    if ((a.test === 'includes' || a.test === 'excludes') && !holding.has(`${a.source}.${a.field}@${a.arg}`)) continue
    const holdsAt = holders.get(k) ?? []
    let holdsIn: Set<string> | undefined
    const holdsInTasks = () => (holdsIn ??= new Set(holdsAt.map(x => taskOf.get(base.supporting[x]!)!)))
    const inSupport = holdsAt.length
    const inAgainst = refuting.get(k) ?? 0
    if (inAgainst === 0 && inSupport >= o.minSupport && strong.length >= MIN_TASKS && strong.every(x => holdsInTasks().has(x))) tried.push({when: [a], score: inSupport, pref: PREFERENCE[a.test], key: `when ${k}`})
    // an exception must be seen not to hold (its read known) where the rule is borne out
    // (a run holding the atom knows its read: those that know it and do not hold it)
    const outside = (knowers.get(a.source)?.length ?? 0) - inSupport
    if (inAgainst === against.length && outside >= o.minSupport && refutedTasks >= MIN_TASKS && strong.length && !strong.some(x => holdsInTasks().has(x))) {
      const held = new Set(holdsAt)
      const outsideIn = knowers.get(a.source)!.filter(x => !held.has(x)).map(x => base.supporting[x]!)
      if (tasks(outsideIn).size >= MIN_TASKS) tried.push({...exception(a), score: outside, pref: PREFERENCE[a.test] + 0.5, key: `unless ${k}`})
    }
  }
  tried.sort((x, y) => y.score - x.score || x.pref - y.pref || (x.key < y.key ? -1 : 1))
  const out: Variant[] = []
  const covered = new Set<string>()
  for (const c of tried.slice(0, MAX_TRIED)) {
    const r = {...rule, ...(c.when ? {when: c.when} : {}), ...(c.unless ? {unless: c.unless} : {})} as Rule
    const t = tally(r, views, ctx)
    if (t.supporting.length < o.minSupport || unexplainedRuns(r, t, views, ctx, others).length) continue
    if (t.supporting.every(id => covered.has(id))) continue
    for (const id of t.supporting) covered.add(id)
    const applicable = new Set([...t.supporting, ...t.counterexamples])
    out.push({rule: r, tally: t, excluded: base.counterexamples.filter(id => !applicable.has(id))})
    yield
  }
  return out
}
