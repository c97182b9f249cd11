import type {Rule} from '../knowledge/index.js'
import {ruleText} from '../reports/rule-text.js'
import {pct} from '../reports/format.js'
import {textLine} from '../records/index.js'

export interface IterationReport {
  iteration: number
  skill: {name: string; version: number; blob: string; commit: string}
  /** the train run the knowledge came from; `reused`: no train run this iteration (the knowledge there is still had a candidate) */
  training: {manifest: string; evaluation: string; passed: number; total: number; rate: number; reused?: boolean}
  patterns: {pattern: string; signature: string; description?: string; support: number; failures: number; rule?: Rule}[]
  knowledge: string[]
  proposal?: {id: string; version: number; branch: string; added: number; removed: number; sections: string[]}
  /** `pairs` compared; with a sequential policy, the pass it stopped after of at most `looks` */
  validation?: {baseline: number; candidate: number; wins: number; losses: number; mcnemar_p: number; evaluation: string; pairs?: number; passes?: number; looks?: number}
  regressions?: number
  holdout?: {baseline: number; candidate: number}
  /** decided_by: the check that decided, with its numbers */
  decision?: {id: string; verdict: 'accept' | 'reject'; reasons: string[]; merge?: string; decided_by?: string}
  note?: string
  /** hypotheses passed over: who holds each (a lane), or why no one can (`why`) */
  blocked?: {hypothesis: string; holder: string; why?: string}[]
  /** candidates retired because main moved under them (and rebased, when anything was left) */
  rebased?: {proposal: string; hypothesis: string; reason: string}[]
  /** episodes recorded so far in the run, this iteration included */
  episodes: number
  /** episodes this iteration recorded, by split (absent for an iteration rebuilt from its records) */
  new_episodes?: {train: number; validation: number; holdout: number; total: number}
  /** finished by an earlier start of the same evolve run (rebuilt from its records, not run again) */
  replayed?: boolean
}


/** The per-iteration dashboard (docs/loop.md, "Evolve"), as plain text. */
export function renderDashboard(r: IterationReport): string {
  const lines = [`Iteration ${r.iteration}`, `Current skill: ${r.skill.name} v${r.skill.version} (${r.skill.commit.slice(0, 8)})`, 'Training:', r.training.reused ? '  not run: the knowledge mined before still has a candidate to propose' : `  ${r.training.passed} / ${r.training.total} success (${pct(r.training.rate)})`]
  lines.push('Observed patterns:')
  if (!r.patterns.length) lines.push('  (nothing new)')
  for (const p of r.patterns.slice(0, 8)) lines.push(`  + ${ruleText(p)} [${p.pattern}, ${p.support} supporting / ${p.failures} against]`)
  if (r.patterns.length > 8) lines.push(`  … and ${r.patterns.length - 8} more`)
  for (const b of r.blocked ?? []) lines.push(`Skipped: ${b.hypothesis} (${b.why ?? `claimed by ${b.holder}`})`)
  for (const x of r.rebased ?? []) lines.push(`Retired: ${x.proposal} (${x.reason})`)
  if (!r.proposal) {
    lines.push(`Candidate: none${r.note ? ` (${r.note})` : ''}`)
    return lines.map(textLine).join('\n')
  }
  lines.push(`Candidate v${r.proposal.version} (${r.proposal.id}):`, `  ${r.proposal.added + r.proposal.removed} line(s) modified in ${r.proposal.sections.join(', ')}`)
  if (r.validation) {
    const v = r.validation
    lines.push(`Validation${v.passes ? ` (${v.pairs} pairs, stopped after pass ${v.passes} of ${v.looks})` : ''}:`, `  v${r.skill.version}    ${pct(v.baseline)}`, `  v${r.proposal.version}    ${pct(v.candidate)}   (wins ${v.wins}, losses ${v.losses}, two-sided McNemar p ${v.mcnemar_p.toFixed(3)})`)
    lines.push('Regressions:', `  ${r.regressions ?? 0}`)
  }
  if (r.holdout) lines.push('Held-out:', `  v${r.skill.version} ${pct(r.holdout.baseline)} -> v${r.proposal.version} ${pct(r.holdout.candidate)}`)
  if (r.decision) {
    lines.push('Decision:', `  ${r.decision.verdict.toUpperCase()}${r.decision.merge ? ` (merge ${r.decision.merge.slice(0, 8)})` : ''}${r.decision.decided_by && r.decision.verdict === 'accept' ? `: ${r.decision.decided_by}` : ''}`)
    if (r.decision.verdict === 'reject') for (const x of r.decision.reasons) lines.push(`  - ${x}`)
  }
  if (r.new_episodes) lines.push(`Episodes: ${r.new_episodes.total} new (train ${r.new_episodes.train}, validation ${r.new_episodes.validation}, held-out ${r.new_episodes.holdout}); ${r.episodes} in the run`)
  // (a line of record text is one line: it cannot add a "Decision:" of its own)
  return lines.map(textLine).join('\n')
}
