import type {ReportIteration} from './iterations.js'
import {pct, short} from './format.js'
import {textLine} from '../records/index.js'

/** Patterns listed per iteration before the rest is counted. */
const PATTERNS_SHOWN = 8

/** The per-iteration dashboard (docs/loop.md, "Evolve"), as plain lines (the Markdown and HTML views wrap them). */
export function dashboardLines(it: ReportIteration): string[] {
  const v = it.skill.version
  const c = it.candidate
  const lines = [`Iteration ${it.iteration}`, `Current skill: ${it.skill.name} v${v} (${short(it.skill.commit)})`, 'Training:']
  lines.push(it.training ? `  ${it.training.passed} / ${it.training.total} success (${pct(it.training.rate)})` : '  (no train run recorded before this proposal)')
  lines.push('Observed patterns:')
  // (the evidence behind the proposal, through the knowledge it cites: src/reports/iterations.ts)
  if (!it.patterns.length) lines.push('  (no evidence behind this proposal)')
  for (const p of it.patterns.slice(0, PATTERNS_SHOWN)) lines.push(`  + ${p.text} [${p.pattern}, ${p.support} supporting / ${p.failures} against]`)
  if (it.patterns.length > PATTERNS_SHOWN) lines.push(`  … and ${it.patterns.length - PATTERNS_SHOWN} more`)
  const bad = it.inconsistent ?? []
  if (bad.length) lines.push(`  (${bad.length} left out, counts that are not the runs they cite: ${bad.slice(0, 3).join(' ')}${bad.length > 3 ? ' …' : ''}; exp fsck names them)`)
  lines.push(`Candidate v${c.version} (${it.proposal}, lane ${it.lane}):`, `  ${c.added + c.removed} line(s) modified in ${c.sections.join(', ') || '(no section)'}`)
  for (const l of c.lines) lines.push(`  + ${l}`)
  if (it.validation) {
    lines.push('Validation:', `  v${v}    ${pct(it.validation.baseline)}`, `  v${c.version}    ${pct(it.validation.candidate)}   (wins ${it.validation.wins}, losses ${it.validation.losses}, McNemar p ${it.validation.mcnemar_p.toFixed(3)})`)
    lines.push('Regressions:', `  ${it.regressions.length}${it.regressions.length ? ` (${it.regressions.join(', ')})` : ''}`)
  } else lines.push('Validation:', '  (not evaluated)')
  if (it.holdout) lines.push('Held-out:', `  v${v} ${it.holdout.baseline === undefined ? '?' : pct(it.holdout.baseline)} -> v${c.version} ${it.holdout.candidate === undefined ? '?' : pct(it.holdout.candidate)}`)
  lines.push('Decision:')
  if (!it.decision) lines.push('  (none yet)')
  else {
    lines.push(`  ${it.decision.verdict.toUpperCase()}${it.decision.merge ? ` (merge ${short(it.decision.merge)})` : ''}`)
    if (it.decision.verdict === 'reject') for (const r of it.decision.reasons) lines.push(`  - ${r}`)
  }
  // (record text of any lane is in these lines: report.md shows them in a code block, report.html in a <pre>)
  return lines.map(textLine)
}
