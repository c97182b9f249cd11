import {requiresApproval, type BeforeRule, type Rule} from '../knowledge/index.js'
import {appliesAt, lookupAt} from './facts.js'
import {exhausted, reusedAfter} from './guards.js'
import {judge, type Context} from './judge.js'
import {resultHolds} from './shapes.js'
import type {Tally} from './score.js'
import type {Call, View} from './types.js'
import {agrees, followsWith} from './view.js'
import {byIdOf, callsOf, firstAfter, firstRead} from './calls.js'

/**
 * Which counterexamples of a rule are explained (docs/mining.md, "Unexplained
 * counterexamples"). A counterexample is evidence against a rule only when the rule made, or
 * would have made, a difference to the run's actions and the outcome went the other way:
 *
 * - a run that followed the rule and failed is explained when following it changed nothing
 *   the run did (the checks were reads and no guard fired), when the run broke another kept
 *   rule, when another run of the same task followed the rule and passed (following it is
 *   compatible with success in that world: the failure came from elsewhere), or when the runs
 *   of its task that broke the rule all failed too (breaking it did no better);
 * - a run that broke the rule and passed is explained when following it would have changed
 *   nothing: the action it guards failed anyway, the checks only read, the read would not have
 *   asked for the conditional call, no item was exhausted, there was nothing to reuse.
 *
 * What remains is unexplained: the rule as written is refuted there, and only a condition
 * that leaves those runs out can make it a claim worth proposing.
 */
export function unexplainedRuns(rule: Rule, t: Tally, views: readonly View[], ctx: Context, others: readonly Rule[]): string[] {
  const byId = byIdOf(views)
  const taskOf = (ids: readonly string[]) => new Set(ids.map(id => byId.get(id)!.task))
  // the reactions of the runs that followed the rule and passed, by task
  const passedReactions = new Map<string, Set<string | undefined>>()
  for (const id of t.followedPassed) {
    const v = byId.get(id)!
    const set = passedReactions.get(v.task) ?? new Set()
    set.add(reaction(rule, v, ctx))
    passedReactions.set(v.task, set)
  }
  // another run of the task followed the rule, reacted the same way and passed: the failure came from elsewhere
  const passedAlike = (v: View) => {
    const set = passedReactions.get(v.task)
    if (!set) return false
    const mine = reaction(rule, v, ctx)
    return mine === undefined || set.has(mine) || set.has(undefined)
  }
  const passedBreaking = taskOf(t.violatedPassed)
  const failedBreaking = taskOf(t.violatedFailed)
  const out: string[] = []
  for (const id of t.followedFailed) {
    const v = byId.get(id)!
    // breaking the rule did no better in this task: the task is hard for other reasons
    const noBetter = failedBreaking.has(v.task) && !passedBreaking.has(v.task)
    if (!changedActions(rule, v, ctx) || passedAlike(v) || noBetter || others.some(o => broke(o, v, ctx))) continue
    out.push(id)
  }
  for (const id of t.violatedPassed) if (wouldChange(rule, byId.get(id)!, ctx)) out.push(id)
  return out.sort()
}

/**
 * Did the run break a rule in a way that matters? Its judge says so and following it would have
 * changed what the run did, or, for a reaction to a failure that runs of this
 * task hit, the run neither hit it nor reacted as the rule says (it went on as if nothing were wrong).
 */
export function broke(r: Rule, v: View, ctx: Context): boolean {
  const verdict = judge(r, v, ctx)
  // breaking a check that would have changed nothing (a read) is no cause of failure
  if (verdict) return verdict === 'violated' && wouldChange(r, v, ctx)
  return r.kind === 'on_error' && !!ctx.failedIn.get(`${r.tool}!${r.code}`)?.has(v.task) && !v.calls.some(c => c.tool === r.tool && !c.ok && c.code === r.code) && !followsWith(v.calls, r.calls, false)
}

/**
 * Did following the rule change what the run did? A `Before` rule changed something only where
 * it speaks and made an action before it (the conditional call was made), or its guard fired.
 */
function changedActions(r: Rule, v: View, ctx: Context): boolean {
  if (r.kind !== 'before') return true
  if (r.guard === 'each_held') return true
  const actions = r.calls.filter(c => ctx.writes.has(c.tool)).map(c => c.tool)
  for (const t of v.calls) {
    if (t.tool !== r.tool || !appliesAt(r, v, t.i, t.args, ctx)) continue
    if (v.calls.some(c => c.i < t.i && actions.includes(c.tool) && agrees(c, t))) return true
  }
  const check = r.calls[0]!.tool
  const spoke = (c: Call) => c.tool === check && c.ok && appliesAt(r, v, c.i, c.args, ctx)
  if (r.guard === 'in_stock') return v.calls.some(c => spoke(c) && exhausted(c, c.args))
  if (r.guard === 'reuse_open') return v.calls.some(c => spoke(c) && reusedAfter(v.calls, c, r.tool))
  return false
}

/** Would following the rule have changed what a run that broke it did? */
function wouldChange(r: Rule, v: View, ctx: Context): boolean {
  if (r.kind !== 'before') return true
  // a precaution before an action that did not take place (it failed) changes nothing
  return v.calls.some(t => t.tool === r.tool && t.ok && appliesAt(r, v, t.i, t.args, ctx) && beforeWouldChange(r, v, t, ctx))
}

function beforeWouldChange(r: BeforeRule, v: View, t: Call, ctx: Context): boolean {
  const look = lookupAt(v, t.i, t.args, ctx)
  if (r.guard === 'each_held') return true
  for (const [k, pre] of r.calls.entries()) {
    if (!ctx.writes.has(pre.tool)) continue
    if (pre.when !== 'policy_requires') return true
    if (r.calls.slice(0, k).some(read => requiresApproval(look(read.tool)))) return true
  }
  const check = r.calls[0]!.tool
  const answer = look(check)
  if (r.guard === 'in_stock') return answer !== undefined && exhausted({i: -1, tool: check, args: t.args, ok: true, wrote: false, result: answer}, t.args)
  // another run of the task reused a record the check listed: this one would have too
  if (r.guard === 'reuse_open') return ctx.reusedIn.get(`${check}>${r.tool}`)?.has(v.task) ?? false
  return false
}

/**
 * How a run reacted to a rule's trigger (`If … fails`, `If … returns`): the tools it called
 * from the trigger to the rule's last response call, at every place the trigger occurred. A
 * run that saw the failure coming reacted with the actions it took back to back (no read in
 * between) up to the rule's last response call. undefined for other rules, and where the run
 * shows no reaction.
 */
function reaction(r: Rule, v: View, ctx: Context): string | undefined {
  if (r.kind !== 'on_error' && r.kind !== 'on_result') return undefined
  const upTo = (calls: readonly Call[]) => {
    let k = 0
    let end = -1
    for (let x = 0; x < calls.length && k < r.calls.length; x++) {
      if (calls[x]!.tool !== r.calls[k]) continue
      k++
      end = x
    }
    return calls.slice(0, end + 1).map(c => c.tool).join('>')
  }
  const hits = callsOf(v.calls, r.tool).filter(c => (r.kind === 'on_error' ? !c.ok && c.code === r.code : c.ok && resultHolds(r.result, c, v, ctx.vocab)) && appliesAt(r, v, c.i, c.args, ctx))
  if (hits.length) return hits.map(h => upTo(v.calls.slice(h.i + 1))).join('|')
  if (r.kind !== 'on_error' || v.calls.some(c => c.tool === r.tool && !c.ok && c.code === r.code)) return undefined
  // foreseen: from the first response call after the run's first read, back over the actions right before it
  const first = firstRead(v.calls, ctx.writes)
  const at = first < 0 ? -1 : firstAfter(v.calls, r.calls, first)
  if (at < 0) return undefined
  let start = at
  while (start > 0 && ctx.writes.has(v.calls[start - 1]!.tool)) start--
  return upTo(v.calls.slice(start))
}
