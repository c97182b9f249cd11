import type {Ledger} from '../store/index.js'
import {NotFoundError, UsageError} from '../errors/index.js'
import {skillTimeline, type HistoryTrust, type MainCommit, type VersionPoint} from './mainline.js'
import {evaluationNode, evaluationsOfProposal, failuresOf, knowledgeNode, shownDecision, unique, visible, type EvaluationNode, type KnowledgeNode} from './provenance-nodes.js'

export type {EvaluationNode, EvidenceNode, KnowledgeNode, TraceNode, Outcome} from './provenance-nodes.js'

export interface ProposalNode {
  id: string
  skill: string
  branch: string
  base: {commit: string; version?: string; skill_blob: string}
  head: {commit: string; version?: string; skill_blob: string}
  size: {added: number; removed: number; changed: number}
  sections: string[]
  reason: string
  edits: {op: string; section: string; lines: string[]; knowledge: string[]}[]
}

export interface DecisionNode {
  id: string
  verdict: 'accept' | 'reject'
  reasons: string[]
  failed_checks: string[]
  policy: {version: string; digest: string}
  merge?: {commit: string; branch: string}
  rejected_ref?: string
  holdout_looks?: number
}

/** Everything behind one proposal: failing traces → evidence → knowledge → recall → proposal → evaluations → decision. */
export interface ProposalChain {
  proposal: ProposalNode
  hypothesis?: {id: string; statement: string}
  recall?: {id: string; budget: {items: number; tokens: number}; used: {items: number; tokens: number}; items: {knowledge: string; rank: number; score: number}[]}
  knowledge: KnowledgeNode[]
  /** public evaluations of the proposal, validation before holdout, baseline before candidate */
  evaluations: EvaluationNode[]
  decision?: DecisionNode
  /** evaluations and decisions of this proposal that do not stand (docs/trust.md), left out of the chain */
  ignored?: string[]
  failures: string[]
  /** ids the chain cites that this clone does not have (or keeps private) */
  missing: string[]
}

/** A version point (its `commit` is the promotion's merge, or the first main commit with the skill) with its chain. */
export interface VersionProvenance extends VersionPoint, Partial<ProposalChain> {
  failures: string[]
  missing: string[]
}

export interface Provenance {
  skill: string
  /** the main branch's tip, its version, and the branch's name (main, master or any) */
  main: {commit: string; version: number; branch?: string}
  versions: VersionProvenance[]
}

const SPLIT_ORDER = ['train', 'validation', 'holdout']
const ROLE_ORDER = ['run', 'baseline', 'gate-base', 'candidate', 'gate-head']

/** The chain behind one proposal, read from the ledger (pure). Undefined when the proposal is not in it. */
export function proposalChain(ledger: Ledger, id: string, extraEvaluations: readonly string[] = [], trust?: HistoryTrust): ProposalChain | undefined {
  // (a record of a private lane is never shown, even in a clone that has it: docs/provenance.md)
  const e = visible(ledger, id)
  if (!e || e.kind !== 'proposal') return undefined
  const b = ledger.load<'proposal'>(e).body
  const missing: string[] = []
  const proposal: ProposalNode = {
    id,
    skill: b.skill,
    branch: b.branch,
    base: {...b.base},
    head: {...b.head},
    size: {...b.patch.size},
    sections: [...b.patch.sections],
    reason: b.reason,
    edits: b.patch.edits.map(x => ({op: String(x.op), section: String(x.section ?? ''), lines: Array.isArray(x.lines) ? x.lines.map(String) : [], knowledge: Array.isArray(x.knowledge) ? x.knowledge.map(String) : []})),
  }
  const chain: ProposalChain = {proposal, knowledge: [], evaluations: [], failures: [], missing}
  // (the ids a proposal names are its writer's word: a record of another kind under one is missing, not read as that kind)
  const hy = b.hypothesis ? visible(ledger, b.hypothesis) : undefined
  if (hy?.kind === 'hypothesis') chain.hypothesis = {id: hy.id, statement: ledger.load<'hypothesis'>(hy).body.statement}
  else if (b.hypothesis) missing.push(b.hypothesis)
  const rc = visible(ledger, b.recall)
  if (rc?.kind === 'recall') {
    const r = ledger.load<'recall'>(rc).body
    chain.recall = {id: rc.id, budget: {...r.budget}, used: {...r.used}, items: r.items.map(i => ({knowledge: i.knowledge, rank: i.rank, score: i.score}))}
  } else missing.push(b.recall)
  chain.knowledge = b.knowledge.map(k => {
    const item = chain.recall?.items.find(i => i.knowledge === k)
    return knowledgeNode(ledger, k, item ? {rank: item.rank, score: item.score} : undefined)
  })
  const ignored: string[] = []
  const counts = (x: string) => {
    if (!trust || trust.counts(x)) return true
    ignored.push(x)
    return false
  }
  const decisions = ledger.select({kinds: ['decision'], cites: id, includePrivate: false}).map(x => ({id: x.id, body: ledger.load<'decision'>(x).body})).filter(d => d.body.proposal === id && counts(d.id))
  // a promotion that was resumed may leave one decision per attempt: an accepting one is the answer
  const d = shownDecision(ledger, id, decisions)
  if (d) {
    const x = d.body
    chain.decision = {id: d.id, verdict: x.verdict, reasons: [...x.reasons], failed_checks: x.checks.filter(c => !c.passed).map(c => c.name), policy: {version: x.policy.version, digest: x.policy.digest}, ...(x.merge ? {merge: {...x.merge}} : {}), ...(x.rejected_ref ? {rejected_ref: x.rejected_ref} : {}), ...(x.holdout_looks !== undefined ? {holdout_looks: x.holdout_looks} : {})}
  }
  const evalIds = unique([...(d?.body.evaluations ?? []), ...extraEvaluations, ...evaluationsOfProposal(ledger, id)])
  for (const x of evalIds) {
    if (ledger.get(x) && !ledger.get(x)!.private && !counts(x)) continue
    const n = evaluationNode(ledger, x)
    if (n) chain.evaluations.push(n)
    else if (!ledger.get(x)?.private) missing.push(x)
  }
  chain.evaluations.sort((a, c) => SPLIT_ORDER.indexOf(a.split) - SPLIT_ORDER.indexOf(c.split) || ROLE_ORDER.indexOf(a.role ?? 'run') - ROLE_ORDER.indexOf(c.role ?? 'run') || (a.id < c.id ? -1 : 1))
  for (const k of chain.knowledge) {
    if (k.missing) missing.push(k.id)
    for (const ev of k.evidence) if (ev.missing) missing.push(ev.id)
  }
  chain.failures = failuresOf(chain.knowledge)
  if (ignored.length) chain.ignored = unique(ignored)
  chain.missing = unique(missing)
  return chain
}

/**
 * `exp provenance SKILL[@VERSION]` (pure): each version of the skill on main — 1 where it
 * first appears, +1 at each promotion merge — with the chain that produced it, back to the
 * failing train traces the knowledge was mined from.
 */
export function provenance(ledger: Ledger, mainline: readonly MainCommit[], o: {skill: string; version?: number; trust?: HistoryTrust}): Provenance {
  const timeline = skillTimeline(mainline, ledger, o.skill, o.trust)
  const tip = mainline[mainline.length - 1]
  if (!tip || !timeline.versions.length) throw new NotFoundError('skill on main', `skills/${o.skill}/SKILL.md`, 'list the skills on main with `git ls-tree --name-only MAIN skills/` (MAIN: the main branch)')
  const points = o.version === undefined ? timeline.versions : timeline.versions.filter(v => v.version === o.version)
  if (!points.length) throw new NotFoundError('skill version', `${o.skill}@${o.version}`, `versions on main: 1..${timeline.versions.length}`)
  const versions = points.map((v): VersionProvenance => {
    const base = {skill: o.skill, version: v.version, origin: v.origin, commit: v.commit, ...(v.skill_blob ? {skill_blob: v.skill_blob} : {}), ...(v.unverified ? {unverified: v.unverified} : {})}
    if (!v.promotion) return {...base, failures: [], missing: []}
    const chain = proposalChain(ledger, v.promotion.proposal, v.promotion.evaluations, o.trust)
    if (!chain) return {...base, promotion: v.promotion, failures: [], missing: [v.promotion.proposal]}
    return {...base, promotion: v.promotion, ...chain}
  })
  return {skill: o.skill, main: {commit: tip.oid, version: timeline.versionAt.get(tip.oid) ?? 0}, versions}
}

/** `SKILL` or `SKILL@VERSION` (a leading `v` is allowed). */
export function parseSkillSpec(spec: string): {skill: string; version?: number} {
  const m = /^([^@]+)(?:@v?(\d+))?$/.exec(spec.trim())
  if (!m) throw new UsageError(`not a skill or skill@version: ${spec}`, 'give SKILL or SKILL@VERSION, e.g. onboarding@2')
  return {skill: m[1]!, ...(m[2] ? {version: Number(m[2])} : {})}
}
