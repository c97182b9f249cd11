import type {EvaluationNode, EvidenceNode, KnowledgeNode, Provenance, ProposalChain, TraceNode, VersionProvenance} from '../projections/provenance.js'
import {renderForest, type TreeNode} from './tree.js'
import {pct, plural, short} from './format.js'
import {ruleText} from './rule-text.js'

/** Failing traces listed per evidence before the rest is counted (the JSON view has them all). */
export const TRACES_SHOWN = 5

function traceLabel(t: TraceNode): string {
  if (t.missing) return `${t.role} trace ${t.id} (not in this clone, or private)`
  const broke = t.failed_invariants.length ? ` broke: ${t.failed_invariants.join(', ')}` : ''
  return `${t.outcome} ${t.split ?? ''} trace ${t.id} ${t.scenario ?? ''} (manifest ${t.manifest ?? '?'})${broke}`.replace(/\s+/g, ' ')
}

function traceNodes(traces: readonly TraceNode[]): TreeNode[] {
  const failed = traces.filter(t => t.outcome === 'failed' || t.missing)
  const rest = traces.length - failed.length
  const nodes: TreeNode[] = failed.slice(0, TRACES_SHOWN).map(t => ({label: traceLabel(t)}))
  if (failed.length > TRACES_SHOWN) nodes.push({label: `… and ${plural(failed.length - TRACES_SHOWN, 'more failing trace')}`})
  if (rest) nodes.push({label: `${plural(rest, 'other trace')} (passed, invalid or ungraded)`})
  return nodes
}

function evidenceNode(e: EvidenceNode): TreeNode {
  if (e.missing) return {label: `evidence ${e.id} (not in this clone)`}
  return {label: `evidence ${e.id} ${ruleText(e)} (${e.pattern}, ${e.support} supporting, ${e.failures} against${e.inconsistent ? `; the counts it states differ: ${e.inconsistent}` : ''})`, children: traceNodes(e.traces)}
}

function knowledgeNode(k: KnowledgeNode): TreeNode {
  if (k.missing) return {label: `knowledge ${k.id} (not in this clone)`}
  const recall = k.recall ? `, recall #${k.recall.rank} score ${k.recall.score.toFixed(2)}` : ''
  const sup = k.supersedes.length ? `, supersedes ${k.supersedes.join(' ')}` : ''
  const children = [...k.evidence.map(evidenceNode), ...(k.runs.length ? [{label: 'supporting runs named by the knowledge', children: traceNodes(k.runs)}] : [])]
  return {label: `knowledge ${k.id} ${k.slug}: "${k.text}" (${k.type}, confidence ${k.confidence.toFixed(2)}${recall}${sup})`, children}
}

export function evaluationLabel(e: EvaluationNode): string {
  const c = e.comparison
  const cmp = c ? `; wins ${c.wins}, losses ${c.losses}, regressions ${c.regressions.length}, McNemar p ${c.mcnemar_p.toFixed(3)}` : ''
  return `${e.split} ${e.role ?? 'run'} ${e.id} ${pct(e.success_rate)} (${e.passed}/${e.total})${cmp}`
}

/** The chain behind a proposal, from its decision down to the failing traces. */
export function chainNodes(c: ProposalChain): TreeNode[] {
  const p = c.proposal
  const nodes: TreeNode[] = []
  if (c.decision) {
    const d = c.decision
    const why = d.verdict === 'reject' ? d.reasons.map(r => ({label: `reason: ${r}`})) : []
    nodes.push({label: `decision ${d.id}: ${d.verdict.toUpperCase()} under policy ${d.policy.version} (${d.policy.digest.slice(0, 19)})${d.rejected_ref ? `, kept at ${d.rejected_ref}` : ''}`, children: why})
  }
  if (c.evaluations.length) nodes.push({label: 'evaluations', children: c.evaluations.map(e => ({label: evaluationLabel(e)}))})
  const edits: TreeNode[] = p.edits.flatMap(e => e.lines.map(l => ({label: `+ ${l}  [${e.section}; ${e.knowledge.join(' ')}]`})))
  const recall: TreeNode = c.recall
    ? {label: `recall ${c.recall.id}: ${c.recall.used.items} of ${c.recall.budget.items} items, ${c.recall.used.tokens} of ${c.recall.budget.tokens} tokens`, children: c.knowledge.map(knowledgeNode)}
    : {label: 'knowledge (no recall record in this clone)', children: c.knowledge.map(knowledgeNode)}
  nodes.push({
    label: `proposal ${p.id}: v${p.base.version ?? '?'} -> v${p.head.version ?? '?'} on ${p.branch}, +${p.size.added} -${p.size.removed} in ${p.sections.join(', ') || '(no section)'}`,
    children: [...edits, ...(c.hypothesis ? [{label: `hypothesis ${c.hypothesis.id}: ${c.hypothesis.statement}`}] : []), recall],
  })
  if (c.missing.length) nodes.push({label: `not in this clone: ${c.missing.join(' ')}`})
  if (c.ignored?.length) nodes.push({label: `ignored, evidence that does not stand (exp fsck): ${c.ignored.join(' ')}`})
  return nodes
}

export function versionNode(v: VersionProvenance): TreeNode {
  if (v.origin === 'initial') return {label: `${v.skill} v${v.version}  initial, commit ${short(v.commit)}`}
  const head = v.unverified ? `${v.skill} v${v.version}  UNVERIFIED merge ${short(v.commit)} (${v.promotion?.proposal ?? '?'})` : `${v.skill} v${v.version}  promoted by merge ${short(v.commit)} (${v.promotion?.proposal ?? '?'})`
  const warn = v.unverified ? [{label: `not a promotion: ${v.unverified}`}] : []
  if (!v.proposal) return {label: head, children: [...warn, {label: `not in this clone: ${v.missing.join(' ')}`}]}
  return {label: `${head}, ${plural(v.failures.length, 'failing trace')} behind it`, children: [...warn, ...chainNodes(v as VersionProvenance & ProposalChain)]}
}

/** `exp provenance` as text: one tree per version, newest last. */
export function renderProvenanceText(p: Provenance): string {
  return `${p.skill} on ${p.main.branch ?? 'main'} ${short(p.main.commit)} is v${p.main.version}\n\n${renderForest(p.versions.map(versionNode))}`
}
