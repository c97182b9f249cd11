import {evidenceCountsProblem} from './evidence-counts.js'
import {onLane, type Ledger} from '../store/index.js'

/**
 * The nodes of a provenance chain, each built from one record and what cites it. A record
 * this clone does not have (not synced yet) or keeps on a private lane is shown as
 * `missing`: provenance output may be shared, held-out records may not.
 */

export type Outcome = 'failed' | 'passed' | 'invalid' | 'unknown'

export interface TraceNode {
  id: string
  role: 'supporting' | 'counterexample' | 'run'
  /** what the grader's verification of the trace says */
  outcome: Outcome
  scenario?: string
  split?: string
  manifest?: string
  verification?: string
  failed_invariants: string[]
  missing?: boolean
}

export interface EvidenceNode {
  id: string
  pattern: string
  signature: string
  description: string
  /** the supporting runs and counterexamples it cites (what the miner writes as its counts) */
  support: number
  failures: number
  traces: TraceNode[]
  missing?: boolean
  /** the counts it states, when they are not the runs it cites (`exp fsck`: inconsistent_evidence) */
  inconsistent?: string
}

export interface KnowledgeNode {
  id: string
  slug: string
  type: string
  text: string
  confidence: number
  status: string
  supersedes: string[]
  /** its place in the recall the proposal was made from */
  recall?: {rank: number; score: number}
  evidence: EvidenceNode[]
  /** traces the knowledge names itself (supporting runs not already under its evidence) */
  runs: TraceNode[]
  missing?: boolean
}

export interface EvaluationNode {
  id: string
  split: string
  role?: string
  success_rate: number
  passed: number
  total: number
  skill_blob: string
  comparison?: {baseline: string; wins: number; losses: number; ties: number; mcnemar_p: number; regressions: string[]}
}

/** A record of the ledger that is not on a private lane (what history views may show), else undefined. */
export const visible = (ledger: Ledger, id: string) => {
  const e = ledger.get(id)
  return e && !e.private ? e : undefined
}

export function traceNode(ledger: Ledger, id: string, role: TraceNode['role']): TraceNode {
  const e = visible(ledger, id)
  if (!e || e.kind !== 'trace') return {id, role, outcome: 'unknown', failed_invariants: [], missing: true}
  const t = ledger.load<'trace'>(e).body
  const node: TraceNode = {id, role, outcome: 'unknown', scenario: t.scenario, split: t.split, manifest: t.manifest, failed_invariants: []}
  const v = ledger.citedBy(id).find(x => x.kind === 'verification' && !x.private)
  if (!v) return node
  const b = ledger.load<'verification'>(v).body
  node.verification = v.id
  node.outcome = !b.valid ? 'invalid' : b.passed ? 'passed' : 'failed'
  node.failed_invariants = [...b.invariants.filter(i => !i.passed).map(i => i.id), ...b.constraint_violations.map(c => `constraint:${c.constraint}`)]
  return node
}

export function evidenceNode(ledger: Ledger, id: string): EvidenceNode {
  const e = visible(ledger, id)
  if (!e || e.kind !== 'evidence') return {id, pattern: '', signature: '', description: '', support: 0, failures: 0, traces: [], missing: true}
  const b = ledger.load<'evidence'>(e).body
  const traces = [...b.supporting.map(t => traceNode(ledger, t, 'supporting')), ...b.counterexamples.map(t => traceNode(ledger, t, 'counterexample'))]
  // (its stated counts once showed 2^53 - 1 beside 51 runs: the runs it cites are the counts shown)
  const inconsistent = evidenceCountsProblem(b)
  return {id, pattern: b.pattern, signature: b.signature, description: b.description, support: b.supporting.length, failures: b.counterexamples.length, traces, ...(inconsistent ? {inconsistent} : {})}
}

export function knowledgeNode(ledger: Ledger, id: string, recall?: {rank: number; score: number}): KnowledgeNode {
  const e = visible(ledger, id)
  const empty = {id, slug: '', type: '', text: '', confidence: 0, status: '', supersedes: [], evidence: [], runs: [], ...(recall ? {recall} : {})}
  if (!e || e.kind !== 'knowledge') return {...empty, missing: true}
  const r = ledger.load<'knowledge'>(e)
  const b = r.body
  const evidenceIds = unique([...b.evidence.evidence_ids, ...r.cites.filter(c => ledger.get(c)?.kind === 'evidence')])
  const evidence = evidenceIds.map(x => evidenceNode(ledger, x))
  const covered = new Set(evidence.flatMap(x => x.traces.map(t => t.id)))
  // supporting runs may name manifests or evaluations too: only traces are nodes of the chain
  const runs = unique(b.evidence.supporting_runs).filter(x => !covered.has(x) && (ledger.get(x)?.kind ?? (x.startsWith('tr-') ? 'trace' : '')) === 'trace').map(x => traceNode(ledger, x, 'run'))
  return {...empty, slug: b.slug, type: b.claim.type, text: b.claim.text, confidence: b.confidence, status: b.status, supersedes: [...b.supersedes], evidence, runs}
}

export function evaluationNode(ledger: Ledger, id: string): EvaluationNode | undefined {
  const e = visible(ledger, id)
  if (!e || e.kind !== 'evaluation') return undefined
  const b = ledger.load<'evaluation'>(e).body
  const c = b.comparison
  return {
    id,
    split: b.split,
    ...(b.role ? {role: b.role} : {}),
    success_rate: b.success_rate,
    passed: b.passed,
    total: b.total,
    skill_blob: b.skill.blob,
    ...(c ? {comparison: {baseline: c.baseline, wins: c.wins, losses: c.losses, ties: c.ties, mcnemar_p: c.mcnemar_p, regressions: c.regressions.map(x => x.scenario)}} : {}),
  }
}

const byProposal = new WeakMap<Ledger, Map<string, string[]>>()

/**
 * Public evaluations per proposal id, in ledger order. Indexed once per ledger (a ledger
 * never changes) because every chain asks, and loading a body is a read and a parse.
 */
export function evaluationsOfProposal(ledger: Ledger, proposal: string): string[] {
  let index = byProposal.get(ledger)
  if (!index) {
    index = new Map()
    for (const e of ledger.select({kinds: ['evaluation'], includePrivate: false})) {
      const p = ledger.load<'evaluation'>(e).body.proposal
      if (p) index.set(p, [...(index.get(p) ?? []), e.id])
    }
    byProposal.set(ledger, index)
  }
  return index.get(proposal) ?? []
}

/** The failing traces a chain reaches, sorted and unique. */
export function failuresOf(knowledge: readonly KnowledgeNode[]): string[] {
  const ids = knowledge.flatMap(k => [...k.evidence.flatMap(e => e.traces), ...k.runs]).filter(t => t.outcome === 'failed').map(t => t.id)
  return unique(ids).sort()
}

export function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)]
}

/**
 * The decisions of a proposal that count (`counts`: the authority's), the one to show first:
 * an accept on the proposal's own lane, else the first accept, else the last decision. (Any
 * lane can copy a standing accept with other words in its reasons: the copy stands, as the
 * policy gives the same verdict on the same evidence, and a lane that sorts first would have
 * had its words shown for the promotion.)
 */
export function shownDecision<T extends {id: string; body: {verdict: string}}>(ledger: Ledger, proposal: string, decisions: readonly T[]): T | undefined {
  const p = ledger.get(proposal)
  const accepts = decisions.filter(d => d.body.verdict === 'accept')
  const own = p ? accepts.find(d => {
    const e = ledger.get(d.id)
    return e !== undefined && onLane(ledger, e, p.lane)
  }) : undefined
  return own ?? accepts[0] ?? decisions[decisions.length - 1]
}
