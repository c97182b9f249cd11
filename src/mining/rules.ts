import {renderConditions, triggerOf, type Rule} from '../knowledge/index.js'
import {exhausted, reusedAfter} from './guards.js'
import {candidates} from './candidates.js'
import {broke, unexplainedRuns} from './explain.js'
import type {Context} from './judge.js'
import {confidenceOf, passes, tally, type Tally, type Thresholds} from './score.js'
import {separate} from './separate.js'
import {preference, ruleKey} from './signature.js'
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
  return refuted(a) - refuted(b) || lift(b) - lift(a) || b.tally.supporting.length - a.tally.supporting.length || b.tally.confidence - a.tally.confidence || preference(b.rule) - preference(a.rule) || cmp(ruleKey(a.rule), ruleKey(b.rule))
}

/** Rank order: confidence, then within-task contrast, then support, then preference, then the key. */
export function rank(a: MinedRule, b: MinedRule): number {
  return b.tally.confidence - a.tally.confidence || b.tally.weight - a.tally.weight || b.tally.supporting.length - a.tally.supporting.length || preference(b.rule) - preference(a.rule) || cmp(ruleKey(a.rule), ruleKey(b.rule))
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
/** A trigger and the situation its conditions name: variants about different situations do not compete. */
const situation = (r: Rule) => `${triggerOf(r)}|${r.when ? renderConditions(r.when) : ''}|${r.unless ? renderConditions(r.unless) : ''}`

/**
 * Every candidate judged against every run; those with enough support and lift survive. Then
 * the counterexamples of each candidate are explained where they can be (explain.ts), and for
 * those left unexplained the narrowest condition that leaves them out is searched (separate.ts):
 * conditioned variants join the candidates. Per trigger the best variant is kept, and the
 * variants whose conditions name another situation. A check is kept only before an action it serves: one that passing runs take right after
 * the check (no other action in between), or the alternative its guard leads to. Rules doing
 * the same pre-calls for every held item keep only the best-ranked one.
 */
export function mineRules(views: readonly View[], ctx: Context, o: Thresholds & {maxCalls: number}): MinedRule[] {
  const base = candidates(views, ctx, o.maxCalls).map(rule => ({rule, tally: tally(rule, views, ctx), unexplained: [] as string[], excluded: [] as string[]}))
  const first = keep(base.filter(m => passes(m.rule, m.tally, o)), views, ctx).map(m => m.rule)
  explainAway(base, first, views, ctx, o)
  // a trigger one kept rule accounts for without a single counterexample needs no condition invented for another variant
  const settled = new Set(base.filter(m => first.includes(m.rule) && !m.tally.counterexamples.length).map(m => triggerOf(m.rule)))
  const variants: MinedRule[] = []
  for (const m of base) {
    if (m.tally.supporting.length < o.minSupport || !m.tally.counterexamples.length) continue
    const others = first.filter(r => triggerOf(r) !== triggerOf(m.rule))
    m.unexplained = unexplainedRuns(m.rule, m.tally, views, ctx, others)
    if (m.unexplained.length && !settled.has(triggerOf(m.rule))) for (const v of separate(m.rule, m.tally, m.unexplained, views, ctx, o, others)) variants.push({...v, unexplained: []})
  }
  const pool = [...base, ...variants]
  for (const m of pool) if (stopRefuted(m, pool, views)) m.unexplained = m.unexplained.length ? m.unexplained : m.tally.followedFailed
  const kept = keep(pool.filter(m => passes(m.rule, m.tally, o)), views, ctx)
  return kept
    .map(m => {
      const unexplained = unexplainedRuns(m.rule, m.tally, views, ctx, kept.filter(k => triggerOf(k.rule) !== triggerOf(m.rule)).map(k => k.rule))
      return {...m, unexplained, tally: {...m.tally, confidence: confidenceOf(m.tally.supporting.length, unexplained.length)}}
    })
    .sort(rank)
}

/**
 * Explaining away (docs/mining.md, "Lift"): in early training most failing runs broke several
 * rules at once, so the lift of a rule that matters is diluted by failures another rule
 * accounts for. A candidate with enough support whose lift falls short is judged again on the
 * runs that broke none of the rules already kept for other triggers; when it passes there, that
 * lift (and its weight) is the one it carries. Its supporting runs and counterexamples stay those
 * of every run: what the other rules explain is sorted out as for any rule (explain.ts).
 */
function explainAway(base: MinedRule[], first: readonly Rule[], views: readonly View[], ctx: Context, o: Thresholds): void {
  const broken = new Map(first.map(r => [r, new Set(views.filter(v => broke(r, v, ctx)).map(v => v.id))]))
  for (const m of base) {
    if (passes(m.rule, m.tally, o) || m.tally.supporting.length < o.minSupport) continue
    const others = first.filter(r => triggerOf(r) !== triggerOf(m.rule))
    const clean = views.filter(v => !others.some(r => broken.get(r)!.has(v.id)))
    if (clean.length === views.length) continue
    const residual = tally(m.rule, clean, ctx)
    if (passes(m.rule, residual, o)) m.tally = {...m.tally, lift: residual.lift, weight: residual.weight, residual: {runs: clean.length, lift: residual.lift!}}
  }
}

/**
 * "and stop" against the same reaction without it: among the runs that reacted, did those that
 * stopped do better than those that went on, in the tasks where both happened? When going on did
 * at least as well, the stop is refuted (its stopping runs count as unexplained); with no task
 * showing both, the data cannot tell and the preference decides.
 */
function stopRefuted(m: MinedRule, pool: readonly MinedRule[], views: readonly View[]): boolean {
  const r = m.rule
  if ((r.kind !== 'on_error' && r.kind !== 'on_result') || !r.stop) return false
  // the same reaction without "and stop" (and without conditions), on the runs this rule speaks about
  const core = ruleKey({...r, stop: false, when: undefined, unless: undefined} as Rule)
  const plain = pool.find(x => x.rule.kind === r.kind && !x.rule.stop && ruleKey({...x.rule, when: undefined, unless: undefined} as Rule) === core)
  if (!plain) return false
  const byId = new Map(views.map(v => [v.id, v]))
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
function keep(list: readonly MinedRule[], views: readonly View[], ctx: Context): MinedRule[] {
  const best: MinedRule[] = []
  const byTrigger = new Map<string, MinedRule[]>()
  for (const m of [...list].sort(select)) {
    const chosen = byTrigger.get(triggerOf(m.rule)) ?? []
    byTrigger.set(triggerOf(m.rule), chosen)
    // one variant per situation; the situation without conditions is one of them
    if (chosen.some(c => situation(c.rule) === situation(m.rule))) continue
    const core = (r: Rule) => ruleKey({...r, when: undefined, unless: undefined} as Rule)
    if (chosen.length && m.tally.supporting.every(id => chosen.some(c => core(c.rule) === core(m.rule) && c.tally.supporting.includes(id)))) continue
    chosen.push(m)
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
  }
  return out.sort(rank)
}

/** Does a passing run take the rule's action (or one of its calls) right after its check, or the path its guard opens? */
function serves(r: Extract<Rule, {kind: 'before'}>, views: readonly View[], ctx: Context): boolean {
  const check = r.calls[0]!.tool
  return views.some(v => v.passed && v.calls.some(c => {
    if (c.tool !== check || !c.ok) return false
    if (r.guard === 'reuse_open' && reusedAfter(v.calls, c, r.tool)) return true
    if (r.guard === 'in_stock' && exhausted(c, c.args)) return true
    // the next action is the rule's own: the action, or a call the rule makes before it
    const next = v.calls.slice(c.i + 1).find(y => ctx.writes.has(y.tool))?.tool
    return next === r.tool || r.calls.some(p => p.tool === next)
  }))
}
