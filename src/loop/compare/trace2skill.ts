import type {RecordDraft} from '../../records/index.js'
import type {KnowledgeBody, TraceBody, VerificationBody} from '../../records/types.js'
import type {Ledger} from '../../store/index.js'
import {renderRule, type Rule} from '../../knowledge/index.js'
import type {MineStep} from '../evolve.js'
import {currentKnowledge} from '../knowledge.js'

/** The drafter of the trace2skill arm, named in its records. */
export const TRACE2SKILL = {name: 'trace2skill', version: '1'}

/** What the drafter turns one raw failing trace into: the first error it met, and where. */
interface RawFailure {
  trace: string
  tool: string
  code: string
  workflows: readonly string[]
}

/**
 * The failing train traces of a ledger (a namespaced store gives the arm's own), each with the
 * first tool error it shows. A failing trace without a tool error says nothing a reader of
 * raw traces can turn into a line, and is left out.
 */
export function rawFailures(ledger: Ledger): RawFailure[] {
  const out: RawFailure[] = []
  for (const e of ledger.select({kinds: ['verification'], includePrivate: false})) {
    const v = ledger.load<'verification'>(e).body as VerificationBody
    if (v.split !== 'train' || !v.valid || v.passed) continue
    const te = ledger.get(v.trace)
    if (!te) continue
    const t = ledger.load<'trace'>(te).body as TraceBody
    const failed = t.actions.find(a => !a.ok && a.error)
    if (!failed) continue
    out.push({trace: te.id, tool: failed.tool, code: failed.error!.code, workflows: t.workflows ?? []})
  }
  return out
}

const slugOf = (tool: string, code: string) => `t2s-${tool}-${code}`.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').slice(0, 120)

/**
 * The trace2skill arm's drafting step (docs/compare.md): patches drafted from raw failing
 * traces, no miner. Every (tool, error code) met first in a failing train trace becomes the
 * line "If `tool` fails with `CODE`, call `escalate` and stop." — the reaction a reader of
 * the raw trajectory would write (give the case to a human) — with no statistics beyond the
 * count of traces that showed it, no counterexample check, no conditions. The lines travel
 * to the proposer as candidate knowledge records of this drafter (so that proposal, branch,
 * evaluation and promotion are the compiler's, and the arms differ only in what writes the
 * lines); a later draft of the same line supersedes the earlier one.
 */
export function trace2skillStep(o: {skill: string; reaction?: readonly string[]}): MineStep {
  const reaction = [...(o.reaction ?? ['escalate'])]
  return async (store, ledger, m) => {
    const failures = rawFailures(ledger)
    const groups = new Map<string, RawFailure[]>()
    for (const f of failures) groups.set(`${f.tool}\u0000${f.code}`, [...(groups.get(`${f.tool}\u0000${f.code}`) ?? []), f])
    const current = new Map(currentKnowledge(ledger).map(k => [k.record.body.slug, k.record]))
    const drafts: RecordDraft<'knowledge'>[] = []
    for (const [, fs] of [...groups].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))) {
      const {tool, code} = fs[0]!
      const rule: Rule = {kind: 'on_error', tool, code, calls: reaction, stop: true}
      const runs = [...new Set(fs.map(f => f.trace))].sort()
      const slug = slugOf(tool, code)
      const prev = current.get(slug)
      if (prev && prev.body.evidence.supporting_runs.length === runs.length) continue
      const body: KnowledgeBody = {
        slug,
        claim: {type: 'recovery', text: renderRule(rule)},
        scope: {workflows: [...new Set(fs.flatMap(f => f.workflows))].sort(), tools: [tool], skills: [o.skill]},
        conditions: [],
        rule,
        unexplained: [],
        evidence: {supporting_runs: runs, counterexamples: [], evidence_ids: []},
        statistics: {support: runs.length, failures: runs.length},
        confidence: Math.round((runs.length / failures.length) * 1e4) / 1e4,
        status: 'candidate',
        status_reason: 'drafted from raw failing traces: no miner, no counterexample check',
        supersedes: prev ? [prev.id] : [],
        contradicts: [],
        affected_tools: [tool],
        miner: TRACE2SKILL,
      }
      drafts.push({kind: 'knowledge', body, cites: [...runs, ...(prev ? [prev.id] : [])]})
    }
    const written = drafts.length ? await store.appendBatch(drafts, {lane: m.lane, ...(m.now ? {now: m.now} : {})}) : []
    return {
      evidence: [],
      knowledge: written.map(w => w.id),
      patterns: drafts.map(d => ({pattern: d.body.slug, signature: d.body.slug, description: d.body.claim.text, support: d.body.statistics.support, failures: d.body.statistics.failures, rule: d.body.rule!})),
    }
  }
}

