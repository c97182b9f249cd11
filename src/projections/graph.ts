import type {FactsByKind} from '../records/index.js'
import type {Ledger} from '../store/index.js'
import {makeRedactor} from '../redact/index.js'
import {isCandidate, isInvalid} from './effect.js'
import {derivations} from './hypotheses.js'
import {researchIndex} from './research.js'
import type {HypothesisStatus} from './types.js'

export interface GraphNode {
  id: string
  kind: 'hypothesis' | 'proposal' | 'evaluation' | 'decision' | 'commit'
  label: string
  lane?: string
  status?: HypothesisStatus
  split?: string
  role?: string
  success_rate?: number
  diff?: number
  valid?: boolean
  verdict?: 'accept' | 'reject'
}

export type EdgeRel = 'tests' | 'evaluates' | 'compares_to' | 'decides' | 'rests_on' | 'merged_as' | 'refines'

export interface GraphEdge {
  from: string
  to: string
  rel: EdgeRel
}

/** The evidence graph (docs/frontier.md, "The evidence graph"). */
export interface EvidenceGraph {
  schema_version: 'research_evidence_graph_v0'
  as_of: string
  nodes: GraphNode[]
  edges: GraphEdge[]
}

export interface GraphOptions {
  now: Date
  /** label hypotheses with their statement (loads those bodies); default true */
  statements?: boolean
  env?: NodeJS.ProcessEnv
  /** evidence that counts (an Authority's `counts`); what does not is left out */
  admit?: (id: string) => boolean
}

const MAX_LABEL = 80

/**
 * The evidence graph: hypotheses (with derived status), the proposals testing them, their
 * evaluations by split and role, the decisions and the commits accepted ones merged.
 * Negative evidence (contradicting evaluations, rejections) stays in. Public-safe by
 * construction: private lanes are never read (the index excludes them), edges to records
 * outside the graph are dropped, trace bodies are never touched, and labels pass the
 * redactor with every absolute path replaced.
 */
export function graph(ledger: Ledger, o: GraphOptions): EvidenceGraph {
  const ix = researchIndex(ledger, o.admit ? {admit: o.admit} : {})
  const redact = makeRedactor({env: o.env ?? {}, paths: true})
  const label = (s: string) => {
    const one = redact(s).replace(/\s+/g, ' ').trim()
    return one.length > MAX_LABEL ? `${one.slice(0, MAX_LABEL - 1)}…` : one
  }
  const nodes = new Map<string, GraphNode>()
  const edges: GraphEdge[] = []
  for (const d of derivations(ix, o.now)) {
    const self = ix.hypotheses.get(d.view.id)!.self
    const text = o.statements === false ? d.view.id : ledger.load<'hypothesis'>(self.entry).body.statement
    nodes.set(d.view.id, {id: d.view.id, kind: 'hypothesis', label: label(text), lane: d.view.lane, status: d.view.status})
    if (self.facts.parent) edges.push({from: d.view.id, to: self.facts.parent, rel: 'refines'})
  }
  for (const p of ix.proposals.values()) {
    if (!p.hypothesis || !nodes.has(p.hypothesis)) continue
    nodes.set(p.entry.id, {id: p.entry.id, kind: 'proposal', label: label(`proposal ${p.facts.branch}`), lane: p.entry.lane})
    edges.push({from: p.entry.id, to: p.hypothesis, rel: 'tests'})
  }
  // attempts of research contracts test hypotheses like proposals do (docs/contracts.md)
  for (const a of ix.attempts.values()) {
    if (!a.hypothesis || !nodes.has(a.hypothesis)) continue
    nodes.set(a.entry.id, {id: a.entry.id, kind: 'proposal', label: label(`attempt ${a.facts.contract} #${a.facts.ordinal}`), lane: a.entry.lane})
    edges.push({from: a.entry.id, to: a.hypothesis, rel: 'tests'})
  }
  for (const e of ix.evaluations.values()) {
    const f = e.facts
    if (!f.proposal || !nodes.has(f.proposal)) continue
    const valid = !isInvalid(f)
    const rate = valid ? ` ${(f.success_rate * 100).toFixed(1)}%` : ' invalid'
    nodes.set(e.entry.id, {id: e.entry.id, kind: 'evaluation', label: label(`${f.split} ${f.role ?? 'run'}${rate}${f.diff !== undefined && isCandidate(f) ? ` (${f.diff >= 0 ? '+' : ''}${(f.diff * 100).toFixed(1)} pt)` : ''}`), lane: e.entry.lane, split: f.split, ...(f.role ? {role: f.role} : {}), success_rate: f.success_rate, ...(f.diff !== undefined ? {diff: f.diff} : {}), valid})
    edges.push({from: e.entry.id, to: f.proposal, rel: 'evaluates'})
    if (f.baseline) edges.push({from: e.entry.id, to: f.baseline, rel: 'compares_to'})
  }
  for (const node of ix.hypotheses.values()) {
    for (const l of node.events) {
      if (l.entry.kind !== 'decision') continue
      const f = l.facts as FactsByKind['decision']
      nodes.set(l.entry.id, {id: l.entry.id, kind: 'decision', label: label(`${f.verdict}`), lane: l.entry.lane, verdict: f.verdict})
      edges.push({from: l.entry.id, to: f.proposal, rel: 'decides'})
      for (const ev of f.evaluations) edges.push({from: l.entry.id, to: ev, rel: 'rests_on'})
      if (f.merge) {
        const id = `commit:${f.merge.commit}`
        nodes.set(id, {id, kind: 'commit', label: label(`${f.merge.commit.slice(0, 12)} on ${f.merge.branch}`)})
        edges.push({from: l.entry.id, to: id, rel: 'merged_as'})
      }
    }
  }
  // an edge to anything outside the graph (a private record, a missing one) is dropped, not dangled
  const kept = edges.filter(e => nodes.has(e.from) && nodes.has(e.to))
  return {schema_version: 'research_evidence_graph_v0', as_of: o.now.toISOString(), nodes: [...nodes.values()], edges: dedupe(kept)}
}

function dedupe(edges: GraphEdge[]): GraphEdge[] {
  const seen = new Set<string>()
  return edges.filter(e => {
    const k = `${e.from}\0${e.to}\0${e.rel}`
    return !seen.has(k) && !!seen.add(k)
  })
}
