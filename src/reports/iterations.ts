import {compareEntries, type Ledger, type LedgerEntry} from '../store/index.js'
import type {HistoryTrust, SkillTimeline} from '../projections/mainline.js'
import {evidenceCountsProblem} from '../projections/evidence-counts.js'
import {proposalChain, type ProposalChain} from '../projections/provenance.js'
import {ruleText} from './rule-text.js'
import type {EvidenceBody} from '../records/types.js'

/** One iteration of the loop as history tells it (docs/provenance.md): a proposal and what came before and after it. */
export interface ReportIteration {
  iteration: number
  proposal: string
  /** the lane that wrote the proposal (any lane can write one: the report says whose it is) */
  lane: string
  skill: {name: string; version: number; blob: string; commit: string}
  /** the train run of the skill the proposal was made on (the last one before it) */
  training?: {evaluation: string; passed: number; total: number; rate: number}
  /**
   * the evidence behind the proposal: what the knowledge it cites cites (its own chain, never
   * another record that merely sits near it in ledger order); text: the rule in words, as the
   * terminal shows it
   */
  patterns: {evidence: string; pattern: string; signature: string; text: string; support: number; failures: number}[]
  /** evidence the chain reaches whose counts are not the runs it cites (`exp fsck`: inconsistent_evidence), left out of `patterns` */
  inconsistent?: string[]
  candidate: {version: number; added: number; removed: number; sections: string[]; lines: string[]; knowledge: string[]}
  validation?: {baseline: number; candidate: number; wins: number; losses: number; mcnemar_p: number; evaluation: string; baseline_evaluation: string}
  regressions: string[]
  holdout?: {baseline?: number; candidate?: number}
  decision?: {id: string; verdict: 'accept' | 'reject'; reasons: string[]; merge?: string; rejected_ref?: string}
  /** main after this iteration: its version and, when it was ever measured, its held-out success */
  main_after: {version: number; blob: string; holdout?: number}
  chain: ProposalChain
}

const num = (s: string | undefined, fallback: number) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : fallback)

/** Held-out success by SKILL.md blob: the same blob is the same skill, whichever run measured it (last measurement wins). */
function holdoutByBlob(ledger: Ledger, trust?: HistoryTrust): Map<string, number> {
  const out = new Map<string, number>()
  for (const e of ledger.select({kinds: ['evaluation'], includePrivate: false})) {
    if (trust && !trust.counts(e.id)) continue
    const b = ledger.load<'evaluation'>(e).body
    if (b.split === 'holdout') out.set(b.skill.blob, b.success_rate)
  }
  return out
}

function trainingBefore(ledger: Ledger, trains: readonly LedgerEntry[], p: LedgerEntry, blob: string): ReportIteration['training'] {
  // the same blob is the same skill: a train run of another version says nothing about this one
  const pick = trains.filter(t => t.lamport < p.lamport).map(t => ({id: t.id, body: ledger.load<'evaluation'>(t).body})).filter(t => t.body.skill.blob === blob).at(-1)
  return pick ? {evaluation: pick.id, passed: pick.body.passed, total: pick.body.total, rate: pick.body.success_rate} : undefined
}

/**
 * The patterns of one iteration: the evidence its proposal's knowledge cites, in the order the
 * proposal names its knowledge (the recall's). A pattern mined again in a later iteration is
 * one knowledge record citing both minings: it is shown once, as last mined (the newest
 * evidence of its signature). Only the chain counts: any lane can pick the Lamport clock of a
 * record, so evidence written between two proposals is not for that reason the loop's
 * (another lane's record at clock 1 once led the first iteration's patterns). Evidence whose
 * counts are not the runs it cites is left out and returned apart.
 */
function patternsOf(ledger: Ledger, chain: ProposalChain): {patterns: ReportIteration['patterns']; inconsistent: string[]} {
  const inconsistent: string[] = []
  const seen = new Set<string>()
  // per signature, the newest consistent evidence, in the order the chain reaches signatures
  const bySignature = new Map<string, {entry: LedgerEntry; body: EvidenceBody}>()
  for (const x of chain.knowledge.flatMap(k => k.evidence)) {
    const e = x.missing || seen.has(x.id) ? undefined : ledger.get(x.id)
    if (e?.kind !== 'evidence' || e.private) continue
    seen.add(e.id)
    const body = ledger.load<'evidence'>(e).body
    if (evidenceCountsProblem(body)) inconsistent.push(e.id)
    else {
      const before = bySignature.get(body.signature)
      if (!before || compareEntries(before.entry, e) < 0) bySignature.set(body.signature, {entry: e, body})
    }
  }
  const patterns = [...bySignature.values()].map(({entry, body: b}) => ({evidence: entry.id, pattern: b.pattern, signature: b.signature, text: ruleText(b), support: b.support, failures: b.failures}))
  return {patterns, inconsistent}
}

/**
 * The iterations of one skill rebuilt from the ledger (pure): each proposal in ledger order
 * with the train evaluation before it, the evidence behind it, its evaluations and its decision.
 */
export function iterationsOf(ledger: Ledger, timeline: SkillTimeline, trust?: HistoryTrust): ReportIteration[] {
  const skill = timeline.skill
  const proposals = ledger.select({kinds: ['proposal'], includePrivate: false}).filter(e => ledger.load<'proposal'>(e).body.skill === skill)
  const trains = ledger.select({kinds: ['evaluation'], includePrivate: false}).filter(e => {
    const b = ledger.load<'evaluation'>(e).body
    return b.split === 'train' && b.skill.name === skill && (!trust || trust.counts(e.id))
  })
  const holdout = holdoutByBlob(ledger, trust)
  const out: ReportIteration[] = []
  let mainNow: {version: number; blob: string} | undefined
  for (const [i, e] of proposals.entries()) {
    const chain = proposalChain(ledger, e.id, [], trust)!
    const p = chain.proposal
    // (versions are main's history's: a proposal record states its own, and another lane's
    // bare record stated v41 and v42 for a main at v2)
    const version = timeline.versionAt.get(p.base.commit) ?? num(p.base.version, 1)
    const merged = timeline.promotions.get(e.id)
    const {patterns, inconsistent} = patternsOf(ledger, chain)
    const cand = chain.evaluations.filter(x => x.split === 'validation' && x.role === 'candidate' && x.comparison).at(-1)
    const base = cand ? chain.evaluations.find(x => x.id === cand.comparison!.baseline) : undefined
    const held = chain.evaluations.filter(x => x.split === 'holdout')
    const hb = held.find(x => x.role === 'baseline')
    const hc = held.find(x => x.role === 'candidate')
    const d = chain.decision
    // main moved only where this proposal's merge is on it; otherwise it is where the iteration
    // before left it (a proposal on an older base, another lane's, says nothing of main now)
    const accepted = d?.verdict === 'accept' && merged !== undefined
    const headVersion = merged?.version ?? version + 1
    const after = accepted ? {version: headVersion, blob: merged.skill_blob ?? p.head.skill_blob} : (mainNow ?? {version, blob: p.base.skill_blob})
    mainNow = after
    const mainBlob = after.blob
    const training = trainingBefore(ledger, trains, e, p.base.skill_blob)
    out.push({
      iteration: i + 1,
      proposal: e.id,
      lane: e.lane,
      skill: {name: skill, version, blob: p.base.skill_blob, commit: p.base.commit},
      ...(training ? {training} : {}),
      patterns,
      ...(inconsistent.length ? {inconsistent} : {}),
      candidate: {version: headVersion, added: p.size.added, removed: p.size.removed, sections: p.sections, lines: p.edits.flatMap(x => x.lines), knowledge: chain.knowledge.map(k => k.id)},
      ...(cand && base ? {validation: {baseline: base.success_rate, candidate: cand.success_rate, wins: cand.comparison!.wins, losses: cand.comparison!.losses, mcnemar_p: cand.comparison!.mcnemar_p, evaluation: cand.id, baseline_evaluation: base.id}} : {}),
      regressions: cand?.comparison?.regressions ?? [],
      ...(hb || hc ? {holdout: {...(hb ? {baseline: hb.success_rate} : {}), ...(hc ? {candidate: hc.success_rate} : {})}} : {}),
      ...(d ? {decision: {id: d.id, verdict: d.verdict, reasons: d.reasons, ...(d.merge ? {merge: d.merge.commit} : {}), ...(d.rejected_ref ? {rejected_ref: d.rejected_ref} : {})}} : {}),
      main_after: {version: after.version, blob: mainBlob, ...(holdout.has(mainBlob) ? {holdout: holdout.get(mainBlob)!} : {})},
      chain,
    })
  }
  return out
}
