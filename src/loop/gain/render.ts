import type {GainResult, GainSide} from './run.js'
import {pct} from '../../reports/format.js'

const rate = (x: number | null) => (x === null ? 'n/a' : pct(x))
const pts = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`

/** results/gain.md: the gain with its paired interval, and the supporting metrics side by side. */
export function gainMarkdown(r: GainResult): string {
  const row = (name: string, f: (s: GainSide) => string) => `| ${name} | ${f(r.closed_loop)} | ${f(r.off)} |`
  return [
    `# Experience Gain ${r.id}`,
    '',
    `**Experience Gain = ${pts(r.gain)} points** (closed_loop ${pct(r.closed_loop.success)} − off ${pct(r.off.success)} on ${r.pairs} paired held-out episodes; paired bootstrap 95% CI [${pts(r.ci[0])}, ${pts(r.ci[1])}], exact McNemar p ${r.mcnemar_p < 0.0001 ? '< 0.0001' : r.mcnemar_p.toFixed(4)}).`,
    '',
    `Skill \`${r.skill}\`, agent \`${r.agent}\`, seed ${r.seed}, budget ${r.budget_episodes} episodes, at most ${r.iterations} iterations, held-out repeat ${r.repeat}, both from ${r.start.slice(0, 12)}.`,
    '',
    '| | closed_loop | off |',
    '| --- | ---: | ---: |',
    row('held-out success', s => `${pct(s.success)} [${pct(s.ci[0])}, ${pct(s.ci[1])}]`),
    row('train runs', s => String(s.metrics.train_runs)),
    row('episodes', s => String(s.metrics.episodes)),
    row('repeated-failure rate', s => `${rate(s.metrics.repeated_failure_rate)} (${s.metrics.repeated_failures}/${s.metrics.later_failures})`),
    row('invalid rate', s => rate(s.metrics.invalid_rate)),
    row('recalled lessons cited by proposals', s => `${rate(s.metrics.recalled_cited_rate)} (${s.metrics.cited}/${s.metrics.recalled})`),
    row('hypothesis redundancy', s => `${rate(s.metrics.hypothesis_redundancy)} (of ${s.metrics.hypotheses})`),
    '',
    `Recorded as note ${r.note}.`,
    '',
  ].join('\n')
}
