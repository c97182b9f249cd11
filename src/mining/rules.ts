import {renderConditions, triggerOf, type Rule} from '../knowledge/index.js'
import {callsOf, nextWrite} from './calls.js'
import {exhausted, reusedAfter} from './guards.js'
import {candidateSteps} from './candidates.js'
import {broke, unexplainedRuns} from './explain.js'
import {speaksIn, type Context} from './judge.js'
import {confidenceOf, passes, tally, type Tally, type Thresholds} from './score.js'
import {separateSteps} from './separate.js'
import {preference, ruleKey} from './signature.js'
import type {Steps} from './steps.js'
import type {View} from './types.js'

export interface MinedRule {
  rule: Rule
  tally: Tally
  /** counterexamples nothing explains (docs/mining.md): a rule with any is never proposed */
  unexplained: string[]
  /** counterexamples of the rule without its conditions, which the conditions leave out */
  excluded: string[]
}

/**
 * Which variant of a trigger to keep: one whose counterexamples are all explained, then the one
 * that best separates passing from failing runs (lift, to one decimal: smaller differences are
 * noise with a few runs per task), then the one that accounts for more runs, then confidence,
 * then preference.
 */
function select(a: MinedRule, b: MinedRule): number {
  const lift = (m: MinedRule) => Math.round(m.tally.lift! * 10)
  const refuted = (m: MinedRule) => (m.unexplained.length ? 1 : 0)
  return refuted(a) - refuted(b) || lift(b) - lift(a) || b.tally.supporting.length - a.tally.supporting.length || b.tally.confidence - a.tally.confidence || preference(b.rule) - preference(a.rule) || cmp(keyOf(a.rule), keyOf(b.rule))
}

/** Rank order: confidence, then within-task contrast, then support, then preference, then the key. */
export function rank(a: MinedRule, b: MinedRule): number {
  return b.tally.confidence - a.tally.confidence || b.tally.weight - a.tally.weight || b.tally.supporting.length - a.tally.supporting.length || preference(b.rule) - preference(a.rule) || cmp(keyOf(a.rule), keyOf(b.rule))
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

// the keys of a rule, written once (sorting and grouping thousands of candidates wrote them at every comparison)
const keys = new WeakMap<Rule, {key: string; trigger: string; situation: string; core: string}>()
function keysOf(r: Rule) {
  let k = keys.get(r)
  if (!k) {
    k = {
      key: ruleKey(r),
      trigger: triggerOf(r),
      situation: `${triggerOf(r)}|${r.when ? renderConditions(r.when) : ''}|${r.unless ? renderConditions(r.unless) : ''}`,
      core: ruleKey({...r, when: undefined, unless: undefined} as Rule),
    }
    keys.set(r, k)
  }
  return k
}
const keyOf = (r: Rule) => keysOf(r).key
const trigger = (r: Rule) => keysOf(r).trigger
/** A trigger and the situation its conditions name: variants about different situations do not compete. */
const situation = (r: Rule) => keysOf(r).situation
/** The rule without its conditions. */
const core = (r: Rule) => keysOf(r).core

/**
 * Every candidate judged against every run; those with enough support and lift survive. Then
 * the counterexamples of each candidate are explained where they can be (explain.ts), and for
 * those left unexplained the narrowest condition that leaves them out is searched (separate.ts):
 * conditioned variants join the candidates. Per trigger the best variant is kept, and the
 * variants whose conditions name another situation. A check is kept only before an action it serves: one that passing runs take right after
 * the check (no other action in between), or the alternative its guard leads to. Rules doing
 * the same pre-calls for every held item keep only the best-ranked one.
 */
export function* mineRules(views: readonly View[], ctx: Context, o: Thresholds & {maxCalls: number}): Steps<MinedRule[]> {
  const base: MinedRule[] = []
  for (const rule of yield* candidateSteps(views, ctx, o.maxCalls)) {
    base.push({rule, tally: tally(rule, views, ctx), unexplained: [], excluded: []})
    yield
  }
  const first = (yield* keep(base.filter(m => passes(m.rule, m.tally, o)), views, ctx)).map(m => m.rule)
  yield* explainAway(base, first, views, ctx, o)
  // a trigger one kept rule accounts for without a single counterexample needs no condition invented for another variant
  const firsts = new Set(first)
  const settled = new Set(base.filter(m => firsts.has(m.rule) && !m.tally.counterexamples.length).map(m => trigger(m.rule)))
  const variants: MinedRule[] = []
  const others = othersOf(first, r => r)
  for (const m of base) {
    if (m.tally.supporting.length < o.minSupport || !m.tally.counterexamples.length) continue
    m.unexplained = unexplainedRuns(m.rule, m.tally, views, ctx, others(m.rule))
    yield
    if (m.unexplained.length && !settled.has(trigger(m.rule))) for (const v of yield* separateSteps(m.rule, m.tally, m.unexplained, views, ctx, o, others(m.rule))) variants.push({...v, unexplained: []})
  }
  const pool = [...base, ...variants]
  const refuted = stopRefuted(pool, views)
  for (const m of pool) if (refuted(m)) m.unexplained = m.unexplained.length ? m.unexplained : m.tally.followedFailed
  const kept = yield* keep(pool.filter(m => passes(m.rule, m.tally, o)), views, ctx)
  const besides = othersOf(kept, k => k.rule)
  const out: MinedRule[] = []
  for (const m of kept) {
    const unexplained = unexplainedRuns(m.rule, m.tally, views, ctx, besides(m.rule).map(k => k.rule))
    out.push({...m, unexplained, tally: {...m.tally, confidence: confidenceOf(m.tally.supporting.length, unexplained.length)}})
    yield
  }
  return out.sort(rank)
}

/**
 * The members of `list` about another trigger than a rule's, in the order of `list` (asked for
 * every candidate: the list was filtered again, each trigger written again, for each).
 */
function othersOf<T>(list: readonly T[], ruleOf: (x: T) => Rule): (r: Rule) => T[] {
  const memo = new Map<string, T[]>()
  return r => {
    const t = trigger(r)
    let out = memo.get(t)
    if (!out) memo.set(t, (out = list.filter(x => trigger(ruleOf(x)) !== t)))
    return out
  }
}

/**
 * Explaining away (docs/mining.md, "Lift"): in early training most failing runs broke several
 * rules at once, so the lift of a rule that matters is diluted by failures another rule
 * accounts for. A candidate with enough support whose lift falls short is judged again on the
 * runs that broke none of the rules already kept for other triggers; when it passes there, that
 * lift (and its weight) is the one it carries. Its supporting runs and counterexamples stay those
 * of every run: what the other rules explain is sorted out as for any rule (explain.ts).
 */
function* explainAway(base: MinedRule[], first: readonly Rule[], views: readonly View[], ctx: Context, o: Thresholds): Steps<void> {
  // the triggers of the kept rules each run broke (a rule breaks only where it speaks: judge.ts speaksIn)
  const broken = new Map<string, Set<string>>()
  for (const r of first) {
    for (const v of speaksIn(r, views, ctx)) {
      if (!broke(r, v, ctx)) continue
      let set = broken.get(v.id)
      if (!set) broken.set(v.id, (set = new Set()))
      set.add(trigger(r))
    }
    yield
  }
  // Every run was tested against every other kept rule, and the candidate judged again on all
  // the clean runs, for each candidate (candidates × runs × kept rules); now the runs that
  // broke a rule of another trigger are counted once (those that broke only rules of the
  // candidate's own trigger stay clean), and the candidate is judged on the clean runs it speaks about.
  const only = new Map<string, number>()
  for (const set of broken.values()) if (set.size === 1) for (const t of set) only.set(t, (only.get(t) ?? 0) + 1)
  for (const m of base) {
    if (passes(m.rule, m.tally, o) || m.tally.supporting.length < o.minSupport) continue
    const t = trigger(m.rule)
    const dirty = broken.size - (only.get(t) ?? 0)
    if (!dirty) continue
    const clean = (v: View) => [...(broken.get(v.id) ?? [])].every(x => x === t)
    const residual = tally(m.rule, speaksIn(m.rule, views, ctx).filter(clean), ctx)
    if (passes(m.rule, residual, o)) m.tally = {...m.tally, lift: residual.lift, weight: residual.weight, residual: {runs: views.length - dirty, lift: residual.lift!}}
    yield
  }
}

/**
 * "and stop" against the same reaction without it: among the runs that reacted, did those that
 * stopped do better than those that went on, in the tasks where both happened? When going on did
 * at least as well, the stop is refuted (its stopping runs count as unexplained); with no task
 * showing both, the data cannot tell and the preference decides.
 */
function stopRefuted(pool: readonly MinedRule[], views: readonly View[]): (m: MinedRule) => boolean {
  // the first rule of the pool without "and stop" for each reaction (each rule with a stop
  // searched the whole pool for it, writing every key again: pool² keys)
  const plains = new Map<string, MinedRule>()
  for (const x of pool) if ((x.rule.kind === 'on_error' || x.rule.kind === 'on_result') && !x.rule.stop && !plains.has(core(x.rule))) plains.set(core(x.rule), x)
  const byId = new Map(views.map(v => [v.id, v]))
  return m => refutedStop(m, plains, byId)
}

function refutedStop(m: MinedRule, plains: ReadonlyMap<string, MinedRule>, byId: ReadonlyMap<string, View>): boolean {
  const r = m.rule
  if ((r.kind !== 'on_error' && r.kind !== 'on_result') || !r.stop) return false
  // the same reaction without "and stop" (and without conditions), on the runs this rule speaks about
  const plain = plains.get(ruleKey({...r, stop: false, when: undefined, unless: undefined} as Rule))
  if (!plain) return false
  const stopped = new Set([...m.tally.followedPassed, ...m.tally.followedFailed])
  const speaks = new Set([...stopped, ...m.tally.violatedPassed, ...m.tally.violatedFailed])
  const cells = new Map<string, {sp: number; sn: number; cp: number; cn: number}>()
  for (const id of [...plain.tally.followedPassed, ...plain.tally.followedFailed]) {
    if (!speaks.has(id)) continue
    const v = byId.get(id)!
    const c = cells.get(v.task) ?? {sp: 0, sn: 0, cp: 0, cn: 0}
    cells.set(v.task, c)
    if (stopped.has(id)) {
      if (v.passed) c.sp++
      else c.sn++
    } else if (v.passed) c.cp++
    else c.cn++
  }
  let stopRate = 0
  let goRate = 0
  let both = 0
  for (const c of cells.values()) {
    if (!(c.sp + c.sn) || !(c.cp + c.cn)) continue
    both++
    stopRate += c.sp / (c.sp + c.sn)
    goRate += c.cp / (c.cp + c.cn)
  }
  return both > 0 && goRate >= stopRate
}

/**
 * Per trigger, the best variant; then other variants only when their conditions name another
 * situation with supporting runs of its own (a contractor, pending information…).
 */
function* keep(list: readonly MinedRule[], views: readonly View[], ctx: Context): Steps<MinedRule[]> {
  const best: MinedRule[] = []
  // per trigger: the situations chosen, and the runs the chosen variants of each core support
  // (each candidate compared its situation with every chosen one, and looked each of its runs
  // up in each chosen one's list: runs² × variants)
  const byTrigger = new Map<string, {situations: Set<string>; count: number; supported: Map<string, Set<string>>}>()
  for (const m of [...list].sort(select)) {
    let chosen = byTrigger.get(trigger(m.rule))
    if (!chosen) byTrigger.set(trigger(m.rule), (chosen = {situations: new Set(), count: 0, supported: new Map()}))
    // one variant per situation; the situation without conditions is one of them
    if (chosen.situations.has(situation(m.rule))) continue
    const same = chosen.supported.get(core(m.rule))
    if (chosen.count && m.tally.supporting.every(id => same?.has(id))) continue
    chosen.situations.add(situation(m.rule))
    chosen.count++
    const runs = same ?? new Set<string>()
    for (const id of m.tally.supporting) runs.add(id)
    chosen.supported.set(core(m.rule), runs)
    best.push(m)
  }
  const out: MinedRule[] = []
  const claimed = new Set<string>()
  for (const m of best.sort(rank)) {
    const r = m.rule
    if (r.kind !== 'before') out.push(m)
    else if (r.guard === 'each_held') {
      const tools = r.calls.map(c => c.tool)
      if (tools.some(t => claimed.has(t))) continue
      for (const t of tools) claimed.add(t)
      out.push(m)
    } else if (serves(r, views, ctx)) out.push(m)
    yield
  }
  return out.sort(rank)
}

/** Does a passing run take the rule's action (or one of its calls) right after its check, or the path its guard opens? */
function serves(r: Extract<Rule, {kind: 'before'}>, views: readonly View[], ctx: Context): boolean {
  const check = r.calls[0]!.tool
  // the runs that make the check (every run was scanned), and the next action from the run's index
  const runs = views === ctx.views ? (ctx.inRun.get(check) ?? []).map(x => views[x]!) : views
  return runs.some(v => v.passed && callsOf(v.calls, check).some(c => {
    if (!c.ok) return false
    if (r.guard === 'reuse_open' && reusedAfter(v.calls, c, r.tool)) return true
    if (r.guard === 'in_stock' && exhausted(c, c.args)) return true
    // the next action is the rule's own: the action, or a call the rule makes before it
    const next = v.calls[nextWrite(v.calls, ctx.writes, c.i)]?.tool
    return next === r.tool || r.calls.some(p => p.tool === next)
  }))
}
