import type {Rule} from '../knowledge/index.js'
import {exhausted, reusedAfter} from './guards.js'
import {candidates} from './candidates.js'
import type {Context} from './judge.js'
import {passes, tally, type Tally, type Thresholds} from './score.js'
import {preference, ruleKey, triggerOf} from './signature.js'
import type {View} from './types.js'

export interface MinedRule {
  rule: Rule
  tally: Tally
}

/**
 * Which variant of a trigger to keep: the one that best separates passing from failing runs
 * (lift, to one decimal: smaller differences are noise with a few runs per task), then the one
 * that accounts for more runs, then confidence, then preference.
 */
function select(a: MinedRule, b: MinedRule): number {
  const lift = (m: MinedRule) => Math.round(m.tally.lift! * 10)
  return lift(b) - lift(a) || b.tally.supporting.length - a.tally.supporting.length || b.tally.confidence - a.tally.confidence || preference(b.rule) - preference(a.rule) || cmp(ruleKey(a.rule), ruleKey(b.rule))
}

/** Rank order: confidence, then within-task contrast, then support, then preference, then the key. */
export function rank(a: MinedRule, b: MinedRule): number {
  return b.tally.confidence - a.tally.confidence || b.tally.weight - a.tally.weight || b.tally.supporting.length - a.tally.supporting.length || preference(b.rule) - preference(a.rule) || cmp(ruleKey(a.rule), ruleKey(b.rule))
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Every candidate judged against every run; those with enough support and lift survive. Per
 * trigger only the best variant is kept (the others say the same thing less well). A check is
 * kept only before an action it serves: one that passing runs take right after the check (no
 * other action in between), or the alternative its guard leads to. A run that skipped a read
 * skipped it before every later action too; the same check "missing" before those is a shadow.
 * Rules doing the same pre-calls for every held item keep only the best-ranked one.
 */
export function mineRules(views: readonly View[], ctx: Context, o: Thresholds & {maxCalls: number}): MinedRule[] {
  const kept = candidates(views, ctx, o.maxCalls)
    .map(rule => ({rule, tally: tally(rule, views, ctx)}))
    .filter(m => passes(m.rule, m.tally, o))
    .sort(select)
  const best = new Map<string, MinedRule>()
  for (const m of kept) if (!best.has(triggerOf(m.rule))) best.set(triggerOf(m.rule), m)
  const out: MinedRule[] = []
  const claimed = new Set<string>()
  for (const m of [...best.values()].sort(rank)) {
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

/** Does a passing run take the rule's action right after its check, or the path its guard opens? */
function serves(r: Extract<Rule, {kind: 'before'}>, views: readonly View[], ctx: Context): boolean {
  const check = r.calls[0]!.tool
  return views.some(v => v.passed && v.calls.some(c => {
    if (c.tool !== check || !c.ok) return false
    if (r.guard === 'reuse_open' && reusedAfter(v.calls, c, r.tool)) return true
    if (r.guard === 'in_stock' && exhausted(c, c.args)) return true
    return v.calls.slice(c.i + 1).find(y => ctx.writes.has(y.tool))?.tool === r.tool
  }))
}
