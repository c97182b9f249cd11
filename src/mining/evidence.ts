import {renderRule, toolsOf, type Rule} from '../knowledge/index.js'
import type {EvidenceBody} from '../records/types.js'
import {contextOf} from './context.js'
import {failureFindings, type Finding} from './findings.js'
import {mineRules, type MinedRule} from './rules.js'
import {confidenceOf} from './score.js'
import {ruleKey} from './signature.js'
import {MINE_DEFAULTS, MINER, type MineOptions, type MinedTrace, type View} from './types.js'
import {drain, type Steps} from './steps.js'
import {byIdOf} from './calls.js'
import {viewOf, type CutTrace} from './view.js'

const PATTERN: Record<Rule['kind'], EvidenceBody['pattern']> = {before: 'missing_check', on_error: 'recovery_strategy', on_result: 'incorrect_assumption', never: 'unnecessary_call'}

/**
 * Mine evidence from train traces and their verifications. Pure and deterministic: the input
 * order does not matter (runs are sorted by scenario, seed and repetition: see usable), nothing reads a clock or draws a number.
 * Throws SplitError (E_SPLIT) on any trace or verification outside the train split; episodes
 * without a valid verdict are left out (see `usable`).
 * Returns one EvidenceBody per finding, best first (confidence, then support, then signature).
 */
export function mineEvidence(traces: readonly MinedTrace[], options: MineOptions = {}): EvidenceBody[] {
  return drain(evidenceSteps(traces, options)).evidence
}

/** The evidence, and the traces read only in part (TRACE_BUDGET, each named in a warning by the commands). */
export interface MinedEvidence {
  evidence: EvidenceBody[]
  cut: CutTrace[]
}

/** mineEvidence as steps (steps.ts): the same work, with a turn for the event loop between its units. */
export function* evidenceSteps(traces: readonly MinedTrace[], options: MineOptions = {}): Steps<MinedEvidence> {
  const o = {...MINE_DEFAULTS, ...options}
  const {views, cut} = yield* usableSteps(traces)
  const ctx = contextOf(views, options.tools)
  yield
  const window = {traces: views.length, manifests: [...new Set(traces.map(t => t.body.manifest))].sort()}
  const rules = (yield* mineRules(views, ctx, o)).map(m => ruleEvidence(m, views, window))
  yield
  const taken = new Set(rules.map(r => r.signature))
  const others = failureFindings(views, o.minSupport).filter(f => !taken.has(f.signature)).map(f => findingEvidence(f, views, window))
  const against = (e: EvidenceBody) => e.unexplained?.length ?? e.failures
  const evidence = [...rules, ...others].sort((a, b) => confidenceOf(b.support, against(b)) - confidenceOf(a.support, against(a)) || b.support - a.support || (a.signature < b.signature ? -1 : 1))
  return {evidence, cut}
}

/**
 * The runs the miner may learn from, in a canonical order: scenario, seed, repetition, then id;
 * `skipped` lists those without a valid verdict, by id. Not by id first: a run's id derives
 * from its manifest's, which names the repository's sealed held-out file (encrypted with a key
 * of its own), so the same episodes get other ids in another repository, and whatever the miner
 * takes from the first run of a task must not depend on where the runs were recorded.
 * `cut` lists the runs read only in part (view.ts TRACE_BUDGET), by id.
 */
export function usable(traces: readonly MinedTrace[]): {views: View[]; skipped: string[]; cut: CutTrace[]} {
  return drain(usableSteps(traces))
}

function* usableSteps(traces: readonly MinedTrace[]): Steps<{views: View[]; skipped: string[]; cut: CutTrace[]}> {
  const keyed: {key: string; view: View}[] = []
  const skipped: string[] = []
  const cut: CutTrace[] = []
  for (const t of traces) {
    const v = viewOf(t, c => cut.push(c))
    if (v) keyed.push({key: `${t.body.scenario}\u0000${String(t.body.seed ?? 0).padStart(12, '0')}\u0000${String(t.body.repetition ?? 0).padStart(6, '0')}\u0000${t.id}`, view: v})
    else skipped.push(t.id)
    yield
  }
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return {views: keyed.map(k => k.view), skipped: skipped.sort(), cut: cut.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))}
}

type Window = NonNullable<EvidenceBody['window']>

function workflowsOf(ids: readonly string[], views: readonly View[]): string[] {
  // the runs by id (every run was tested, for each finding)
  const byId = byIdOf(views)
  const set = new Set(ids)
  return [...new Set(views.length <= set.size ? views.filter(v => set.has(v.id)).flatMap(v => v.workflows) : [...set].flatMap(id => byId.get(id)?.workflows ?? []))].sort()
}

function ruleEvidence({rule, tally: t, unexplained, excluded}: MinedRule, views: readonly View[], window: Window): EvidenceBody {
  const pattern = rule.kind === 'never' && rule.while ? 'termination_failure' : PATTERN[rule.kind]
  const rate = (p: number, n: number) => `${p}/${n}`
  const explained = unexplained.length ? ` ${unexplained.length} of its ${t.counterexamples.length} counterexample(s) are not explained.` : t.counterexamples.length ? ` Its ${t.counterexamples.length} counterexample(s) are explained.` : ''
  const left = excluded.length ? ` Its conditions leave out ${excluded.length} run(s) that refute it without them.` : ''
  const description = `${renderRule(rule)} Runs that followed it passed ${rate(t.followedPassed.length, t.followedPassed.length + t.followedFailed.length)}; runs that did not passed ${rate(t.violatedPassed.length, t.violatedPassed.length + t.violatedFailed.length)} (lift ${t.lift}${t.residual ? ` over the ${t.residual.runs} runs that broke no other kept rule` : ''}).${explained}${left}`
  return {
    pattern,
    signature: `${pattern}:${ruleKey(rule)}`,
    description,
    workflows: workflowsOf(t.supporting, views),
    tools: toolsOf(rule),
    rule: {...rule},
    supporting: t.supporting,
    counterexamples: t.counterexamples,
    support: t.supporting.length,
    failures: t.counterexamples.length,
    unexplained,
    ...(excluded.length ? {excluded} : {}),
    miner: {...MINER},
    window,
  }
}

function findingEvidence(f: Finding, views: readonly View[], window: Window): EvidenceBody {
  return {...f, workflows: workflowsOf(f.supporting, views), support: f.supporting.length, failures: f.counterexamples.length, miner: {...MINER}, window}
}


