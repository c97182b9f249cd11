import {RESULTS, STATES as STATE_PHRASES, renderCondition, renderConditions, renderRule, type Rule} from '../knowledge/index.js'
import {prepare, type RecordDraft} from '../records/index.js'
import type {EvidenceBody, KnowledgeBody} from '../records/types.js'
import {CONFIDENCE_FORMULA, confidenceOf} from './score.js'
import {ruleKey, slugOf, triggerOf} from './signature.js'
import {MINER} from './types.js'

export interface MergeOptions {
  /** least confidence for a claim to be `active` rather than `candidate` (default 0.5) */
  activeConfidence?: number
  /**
   * which existing claims are the mining lane's own: only those make a claim already recorded
   * (same runs) or superseded by a new one; every lane's still contradict it. Unset: all. Another
   * lane that wrote a lane's claims first, in words, scope and status of its own, once left it
   * recording none.
   */
  own?: (id: string) => boolean
}

export interface Identified<B> {
  id: string
  body: B
}

/** a claim names at most this many of the claims it contradicts (the most confident ones) */
export const MAX_RIVALS = 64

const CLAIM: Record<EvidenceBody['pattern'], KnowledgeBody['claim']['type']> = {
  missing_check: 'procedure', recovery_strategy: 'recovery', incorrect_assumption: 'constraint', termination_failure: 'termination',
  unnecessary_call: 'avoidance', bad_sequence: 'avoidance', failure_mode: 'avoidance', success_strategy: 'strategy',
}

/**
 * Turn evidence into knowledge drafts, one claim per signature (slug). Knowledge is never
 * edited: when the runs behind a slug change, a new record supersedes the current one (its
 * runs are carried over, the newest verdict on a run winning); when they do not, nothing is
 * emitted. Claims whose rules share a trigger but answer it differently contradict each
 * other: a new claim names the standing claims it contradicts (those already recorded, and
 * those drafted before it in this merge), the MAX_RIVALS most confident of them. A claim is `active` when its confidence
 * reaches `activeConfidence` and no claim it contradicts is at least as confident.
 * Pure: the output depends only on the inputs, in any order. Best claims first.
 */
export function mergeKnowledge(evidence: readonly Identified<EvidenceBody>[], existing: readonly Identified<KnowledgeBody>[], options: MergeOptions = {}): RecordDraft<'knowledge'>[] {
  const active = options.activeConfidence ?? 0.5
  const current = currentBySlug(options.own ? existing.filter(k => options.own!(k.id)) : existing)
  const everyLane = options.own ? currentBySlug(existing) : current
  const claims = [...groupBySignature(evidence)].map(([signature, group]) => claimOf(signature, group, current.get(slugOf(signature)) ?? []))
  claims.sort((a, b) => b.confidence - a.confidence || b.statistics.support - a.statistics.support || (a.slug < b.slug ? -1 : 1))
  // what each slug stands for once this merge is recorded: its new draft, or its current record;
  // by the trigger of its rule, as only a rule of the same trigger can contradict another (every
  // claim was compared with every standing record of every lane: claims × records)
  const standing = new Map<string, {id: string; body: KnowledgeBody}>()
  const byTrigger = new Map<string, Set<string>>()
  const stand = (k: {id: string; body: KnowledgeBody}) => {
    standing.set(k.body.slug, k)
    if (!k.body.rule) return
    const t = triggerOf(k.body.rule)
    let slugs = byTrigger.get(t)
    if (!slugs) byTrigger.set(t, (slugs = new Set()))
    slugs.add(k.body.slug)
  }
  for (const list of everyLane.values()) for (const k of list) stand(k)
  const out: RecordDraft<'knowledge'>[] = []
  for (const body of claims) {
    const prev = current.get(body.slug) ?? []
    if (prev.length && prev.every(p => sameRuns(p.body, body))) continue
    const same = body.rule ? [...(byTrigger.get(triggerOf(body.rule)) ?? [])].map(slug => standing.get(slug)!) : []
    // the most confident first (the one that decides the status among them), then by id; at most
    // MAX_RIVALS named: any lane can write claims on a trigger, and 40,000 of them once made an
    // honest claim's record larger than the store takes (and mining of it stop)
    const rivals = same.filter(k => k.body.slug !== body.slug && contradicts(k.body, body)).sort((a, b) => b.body.confidence - a.body.confidence || (a.id < b.id ? -1 : 1))
    body.contradicts = rivals.slice(0, MAX_RIVALS).map(k => k.id).sort()
    const rival = rivals.find(k => k.body.confidence >= body.confidence)
    const refuted = body.unexplained ?? []
    body.status = body.confidence >= active && !rival && !refuted.length ? 'active' : 'candidate'
    body.status_reason = refuted.length
      ? `${refuted.length} counterexample(s) its conditions do not explain (${refuted.slice(0, 3).join(', ')}${refuted.length > 3 ? ', ...' : ''}): not proposed until a condition leaves them out`
      : body.confidence < active ? `confidence ${body.confidence} is below ${active}`
      : rival ? `contradicted by ${rival.id}, at least as confident`
      : `confidence ${body.confidence} >= ${active}; every counterexample explained`
    const draft: RecordDraft<'knowledge'> = {kind: 'knowledge', body, cites: [...body.evidence.evidence_ids, ...body.supersedes, ...body.contradicts]}
    stand({id: prepare(draft).id, body})
    out.push(draft)
  }
  return out
}

/**
 * The ids of knowledge records that another of `records` supersedes in a way that counts: a
 * record of the same slug and the same rule that carries the superseded record's evidence
 * forward (its evidence ids, and every run it judged, as supporting or as counterexample).
 * That is what a miner writes (claimOf) and what trace2skill writes (its runs only grow).
 * A record that names others in `supersedes` without carrying them — any lane can write one
 * — hides nothing: both stay current, and a reader sees both. Records that supersede each
 * other in a cycle (keyed records can name each other's ids) hide none of the cycle: a slug
 * never ends up with no current record. Independent of the order of `records`.
 */
export function supersededIds(records: readonly Identified<KnowledgeBody>[]): Set<string> {
  const byId = new Map(records.map(k => [k.id, k.body]))
  const edges = new Map<string, string[]>()
  for (const k of records) {
    const olds = k.body.supersedes.filter(old => old !== k.id && byId.has(old) && carries(k.body, byId.get(old)!))
    if (olds.length) edges.set(k.id, olds)
  }
  const scc = components(edges)
  const out = new Set<string>()
  for (const [next, olds] of edges) for (const old of olds) if (scc.get(old) !== scc.get(next)) out.add(old)
  return out
}

/** The strongly connected component of every node of a graph (Tarjan's, without recursion). */
function components(edges: ReadonlyMap<string, readonly string[]>): Map<string, number> {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const comp = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  let n = 0
  let c = 0
  for (const root of edges.keys()) {
    if (index.has(root)) continue
    const work: {v: string; i: number}[] = [{v: root, i: 0}]
    index.set(root, n)
    low.set(root, n++)
    stack.push(root)
    on.add(root)
    while (work.length) {
      const top = work[work.length - 1]!
      const out = edges.get(top.v) ?? []
      if (top.i < out.length) {
        const w = out[top.i++]!
        if (!index.has(w)) {
          index.set(w, n)
          low.set(w, n++)
          stack.push(w)
          on.add(w)
          work.push({v: w, i: 0})
        } else if (on.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!))
        continue
      }
      work.pop()
      if (work.length) {
        const parent = work[work.length - 1]!.v
        low.set(parent, Math.min(low.get(parent)!, low.get(top.v)!))
      }
      if (low.get(top.v) === index.get(top.v)) {
        let w: string
        do {
          w = stack.pop()!
          on.delete(w)
          comp.set(w, c)
        } while (w !== top.v)
        c++
      }
    }
  }
  return comp
}

function carries(next: KnowledgeBody, old: KnowledgeBody): boolean {
  if (next.slug !== old.slug) return false
  if (old.rule && (!next.rule || ruleKey(next.rule) !== ruleKey(old.rule))) return false
  const ids = new Set(next.evidence.evidence_ids)
  const runs = new Set([...next.evidence.supporting_runs, ...next.evidence.counterexamples])
  return old.evidence.evidence_ids.every(id => ids.has(id)) && [...old.evidence.supporting_runs, ...old.evidence.counterexamples].every(id => runs.has(id))
}

/** slug → its current records: those no other knowledge record supersedes (usually one; supersededIds). */
function currentBySlug(existing: readonly Identified<KnowledgeBody>[]): Map<string, Identified<KnowledgeBody>[]> {
  const superseded = supersededIds(existing)
  const out = new Map<string, Identified<KnowledgeBody>[]>()
  const seen = new Set<string>()
  for (const k of [...existing].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (superseded.has(k.id)) continue
    const list = out.get(k.body.slug) ?? []
    if (!seen.has(`${k.body.slug}\u0000${k.id}`)) list.push(k)
    seen.add(`${k.body.slug}\u0000${k.id}`)
    out.set(k.body.slug, list)
  }
  return out
}

function groupBySignature(evidence: readonly Identified<EvidenceBody>[]): Map<string, Identified<EvidenceBody>[]> {
  const out = new Map<string, Identified<EvidenceBody>[]>()
  for (const e of [...evidence].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    let list = out.get(e.body.signature)
    if (!list) out.set(e.body.signature, (list = []))
    list.push(e)
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)))
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort()

function claimOf(signature: string, group: Identified<EvidenceBody>[], prev: Identified<KnowledgeBody>[]): KnowledgeBody {
  const first = group[0]!.body
  const fresh = {supporting: new Set(group.flatMap(e => e.body.supporting)), counter: new Set(group.flatMap(e => e.body.counterexamples))}
  // runs judged before and not judged again keep their verdict
  const supporting = sorted([...prev.flatMap(p => p.body.evidence.supporting_runs).filter(id => !fresh.counter.has(id)), ...fresh.supporting])
  const counterexamples = sorted([...prev.flatMap(p => p.body.evidence.counterexamples).filter(id => !fresh.supporting.has(id)), ...fresh.counter])
  const rule = first.rule
  const tools = sorted(group.flatMap(e => e.body.tools))
  const judged = new Set([...fresh.supporting, ...fresh.counter])
  // evidence of format 1 says nothing about explanations: its counterexamples count as unexplained
  const unexplained = sorted([...prev.flatMap(p => p.body.unexplained ?? p.body.evidence.counterexamples).filter(id => !judged.has(id)), ...group.flatMap(e => e.body.unexplained ?? e.body.counterexamples)])
  const excluded = sorted(group.flatMap(e => e.body.excluded ?? []))
  const body: KnowledgeBody = {
    slug: slugOf(signature),
    claim: {type: CLAIM[first.pattern], text: rule ? renderRule(rule) : first.description},
    scope: {workflows: sorted([...prev.flatMap(p => p.body.scope.workflows), ...group.flatMap(e => e.body.workflows)]), tools},
    conditions: rule ? conditionsOf(rule) : [signature],
    evidence: {supporting_runs: supporting, counterexamples, evidence_ids: sorted([...prev.flatMap(p => p.body.evidence.evidence_ids), ...group.map(e => e.id)])},
    statistics: {support: supporting.length, failures: counterexamples.length},
    confidence: confidenceOf(supporting.length, rule ? unexplained.length : counterexamples.length),
    confidence_formula: CONFIDENCE_FORMULA,
    status: 'candidate',
    supersedes: prev.map(p => p.id),
    contradicts: [],
    affected_tools: tools,
    miner: {...MINER},
  }
  if (rule) {
    body.rule = {...rule}
    body.unexplained = unexplained
    if (excluded.length) body.excluded = excluded
  }
  return body
}

function sameRuns(a: KnowledgeBody, b: KnowledgeBody): boolean {
  const eq = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v, i) => v === y[i])
  return eq(a.evidence.supporting_runs, b.evidence.supporting_runs) && eq(a.evidence.counterexamples, b.evidence.counterexamples) && eq(a.unexplained ?? [], b.unexplained ?? [])
}

/**
 * Same trigger, different response, about the same situation: two rules whose conditions name
 * different situations (both have some, and they differ) speak about different runs and do not
 * contradict each other; a rule without conditions speaks wherever the other does.
 */
export function contradicts(a: KnowledgeBody, b: KnowledgeBody): boolean {
  const ra = a.rule
  const rb = b.rule
  if (!ra || !rb || triggerOf(ra) !== triggerOf(rb) || ruleKey(ra) === ruleKey(rb)) return false
  const situation = (r: Rule) => [r.when, r.unless].map(c => (c?.length ? renderConditions(c) : '')).join('|')
  const [sa, sb] = [situation(ra), situation(rb)]
  return sa === '|' || sb === '|' || sa === sb
}

/** When the claim applies, in words: its trigger, then its conditions and exceptions. */
export function conditionsOf(r: Rule): string[] {
  return [conditionOf(r), ...(r.when ?? []).map(renderCondition), ...(r.unless ?? []).map(c => `unless ${renderCondition(c)}`)]
}

/** When the claim's trigger occurs, in words. */
export function conditionOf(r: Rule): string {
  switch (r.kind) {
    case 'before': return `before calling \`${r.tool}\``
    case 'on_error': return `\`${r.tool}\` failed with \`${r.code}\``
    case 'on_result': return `\`${r.tool}\` returned ${RESULTS[r.result]}`
    case 'never': return r.while ? `while ${STATE_PHRASES[r.while]}` : 'always'
  }
}
