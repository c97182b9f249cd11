import type {CompareResult} from './run.js'
import {pct} from '../../reports/format.js'

const yes = (b: boolean) => (b ? 'yes' : 'no')
const fmtP = (p: number) => (p < 0.0001 ? '< 0.0001' : p.toFixed(4))

/** results/compare.csv: one line per arm (ids, numbers and fixed words: no field needs RFC 4180 quoting). */
export function compareCsv(r: CompareResult): string {
  const head = ['arm', 'mode', 'persistent_traces', 'structured_knowledge', 'evolved_skill', 'success', 'ci_low', 'ci_high', 'passed', 'total', 'invalid', 'episodes', 'holdout_episodes', 'promoted', 'knowledge', 'skill_blob', 'evaluation']
  const rows = r.arms.map(a => [a.arm, a.mode, a.persistent_traces, a.structured_knowledge, a.evolved_skill, a.success.toFixed(6), a.ci[0].toFixed(6), a.ci[1].toFixed(6), a.passed, a.total, a.invalid, a.episodes, a.holdout_episodes, a.promoted ?? '', a.knowledge, a.skill.blob, a.evaluation].join(','))
  return `${head.join(',')}\n${rows.join('\n')}\n`
}

/** results/compare.md: the arms, the paired tests and the verdicts, in words and tables. */
export function compareMarkdown(r: CompareResult): string {
  const out: string[] = []
  out.push(`# exp compare ${r.id}`, '')
  out.push(`Skill \`${r.skill}\`, agent \`${r.agent}\`, seed ${r.seed}, budget ${r.budget_episodes} episodes per arm, at most ${r.iterations} iterations, held-out repeat ${r.repeat}; every arm started from ${r.start.slice(0, 12)}. Held-out: ${r.holdout.sealed ? 'sealed split, opened with the key' : 'plain split'}.`, '')
  out.push('## Arms (held-out success, 95% Wilson interval)', '')
  out.push('| arm | traces | knowledge | evolved skill | mode | success | 95% CI | passed / total | episodes used | promoted |', '| --- | --- | --- | --- | --- | ---: | --- | ---: | ---: | ---: |')
  for (const a of r.arms) out.push(`| ${a.arm} | ${yes(a.persistent_traces)} | ${yes(a.structured_knowledge)} | ${yes(a.evolved_skill)} | ${a.mode} | ${pct(a.success)} | [${pct(a.ci[0])}, ${pct(a.ci[1])}] | ${a.passed} / ${a.total} | ${a.episodes} | ${a.promoted ?? '-'} |`)
  out.push('', '## Paired tests (same held-out episodes)', '')
  out.push('| a | b | pairs | a won | b won | a − b | bootstrap 95% CI | McNemar p |', '| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |')
  for (const p of r.pairs) out.push(`| ${p.a} | ${p.b} | ${p.pairs} | ${p.wins} | ${p.losses} | ${(p.diff * 100).toFixed(1)} pts | [${(p.bootstrap_ci[0] * 100).toFixed(1)}, ${(p.bootstrap_ci[1] * 100).toFixed(1)}] | ${fmtP(p.mcnemar_p)} |`)
  out.push('', '## Hypotheses', '')
  for (const h of r.hypotheses) out.push(`- **${h.id}** (${h.statement}): **${h.verdict}**. ${h.evidence}.`)
  out.push('', `Recorded as note ${r.note}; each arm's records are on its own lane (${r.arms.map(a => a.namespace).join(', ')}).`, '')
  return out.join('\n')
}
