import type {AblationNote} from './credit.js'
import type {Ledger} from '../store/index.js'
import {skillTimeline, type HistoryTrust, type MainCommit} from '../projections/mainline.js'
import {contractProvenance, type ContractProvenance} from '../projections/contract-provenance.js'
import {provenance, type Provenance, type ProposalChain} from '../projections/provenance.js'
import {iterationsOf, type ReportIteration} from './iterations.js'
import {researchResults, type ResearchResults} from './research.js'
import type {SkippedNote} from './notes.js'

export type {ReportIteration} from './iterations.js'

/** One point of the success-per-iteration chart; iteration 0 is main before the first proposal. */
export interface ChartPoint {
  iteration: number
  /** main's version after the iteration */
  version: number
  validation_before?: number
  validation_after?: number
  verdict?: 'accept' | 'reject'
  /** held-out success of main after the iteration (of the same skill blob, whenever it was measured) */
  holdout?: number
}

export interface RejectedProposal {
  iteration: number
  proposal: string
  version: number
  decision: string
  reasons: string[]
  failed_checks: string[]
  rejected_ref?: string
  lines: string[]
  knowledge: string[]
  chain: ProposalChain
}

export interface SkillReport {
  skill: string
  version: number
  iterations: ReportIteration[]
  chart: ChartPoint[]
  provenance: Provenance
  rejected: RejectedProposal[]
}

/** Everything `exp report` renders, and what `exp report --json` prints. No clock: the same history gives the same report. */
export interface Report {
  format: 'exp-report@1'
  main: {ref: string; commit: string}
  ledger: {records: number; lamport: number}
  skills: SkillReport[]
  /** research contracts on main: each promoted attempt and the rejected ones (docs/contracts.md) */
  contracts?: ContractProvenance[]
  /** the latest `exp compare` and `exp gain` results (src/reports/research.ts, docs/compare.md) */
  research?: ResearchResults
  /** the latest `exp ablate` credits of each skill's current SKILL.md (src/reports/credit.ts) */
  credit?: AblationNote[]
}

function chartOf(iterations: readonly ReportIteration[]): ChartPoint[] {
  const first = iterations[0]
  if (!first) return []
  const start: ChartPoint = {iteration: 0, version: first.skill.version, ...(first.holdout?.baseline !== undefined ? {holdout: first.holdout.baseline} : {})}
  return [
    start,
    ...iterations.map(it => ({
      iteration: it.iteration,
      version: it.main_after.version,
      ...(it.validation ? {validation_before: it.validation.baseline, validation_after: it.validation.candidate} : {}),
      ...(it.decision ? {verdict: it.decision.verdict} : {}),
      ...(it.main_after.holdout !== undefined ? {holdout: it.main_after.holdout} : {}),
    })),
  ]
}

/** The report model (pure): per skill, the iterations, the chart, the provenance of every version and the rejections; `skipped` is told of each malformed note left out (reports/notes.ts). */
export function buildReport(ledger: Ledger, mainline: readonly MainCommit[], o: {mainRef: string; skills: readonly string[]; trust?: HistoryTrust; skipped?: (s: SkippedNote) => void}): Report {
  const tip = mainline[mainline.length - 1]
  const skills: SkillReport[] = []
  for (const skill of o.skills) {
    const timeline = skillTimeline(mainline, ledger, skill, o.trust)
    if (!timeline.versions.length) continue
    const iterations = iterationsOf(ledger, timeline, o.trust)
    const rejected = iterations.filter(it => it.decision?.verdict === 'reject').map((it): RejectedProposal => ({
      iteration: it.iteration,
      proposal: it.proposal,
      version: it.candidate.version,
      decision: it.decision!.id,
      reasons: it.decision!.reasons,
      failed_checks: it.chain.decision?.failed_checks ?? [],
      ...(it.decision!.rejected_ref ? {rejected_ref: it.decision!.rejected_ref} : {}),
      lines: it.candidate.lines,
      knowledge: it.candidate.knowledge,
      chain: it.chain,
    }))
    skills.push({skill, version: timeline.versions.length, iterations, chart: chartOf(iterations), provenance: provenance(ledger, mainline, {skill, ...(o.trust ? {trust: o.trust} : {})}), rejected})
  }
  const contracts = (tip?.contracts ?? []).map(c => contractProvenance(ledger, mainline, c, o.trust)).filter(c => c.versions.length > 1 || c.rejected.length)
  const research = researchResults(ledger, o.trust, o.skipped ? {skipped: o.skipped} : {})
  return {format: 'exp-report@1', main: {ref: o.mainRef, commit: tip?.oid ?? ''}, ledger: {records: ledger.size, lamport: ledger.maxLamport}, skills, ...(contracts.length ? {contracts} : {}), ...(research ? {research} : {})}
}
