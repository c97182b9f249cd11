import type {MatrixCell, MatrixResult} from './matrix.js'
import {pct} from '../reports/format.js'

/** `results/transfer-matrix.csv` and `.md` (docs/matrix.md), pure. */

const csvField = (s: string | number) => {
  const t = String(s)
  return /[",\n\r]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t
}
const r4 = (x: number) => (Math.round(x * 1e4) / 1e4).toFixed(4)
const md = (s: string) => s.replace(/\|/g, '\\|')

export function matrixCsv(m: MatrixResult): string {
  const head = ['source', 'executor', 'passed', 'episodes', 'success', 'ci_low', 'ci_high', 'skill_commit', 'skill_blob', 'evaluation', 'manifest']
  const row = (c: MatrixCell) => [c.source, c.executor, c.passed, c.total, r4(c.rate), r4(c.ci[0]), r4(c.ci[1]), c.skill.commit, c.skill.blob, c.evaluation, c.manifest].map(csvField).join(',')
  return [head.join(','), ...m.initial.map(row), ...m.cells.map(row)].join('\n') + '\n'
}

export function rulesCsv(m: MatrixResult): string {
  const head = ['source', 'line', 'class', 'measured', 'helps', 'rule', 'reason']
  const rows = m.sources.flatMap(s => s.rules.map(r => [s.spec, r.line, r.class, r.measured ? 'yes' : 'no', r.helps.join(' '), r.rule, r.reason].map(csvField).join(',')))
  return [head.join(','), ...rows].join('\n') + '\n'
}

export function matrixMarkdown(m: MatrixResult): string {
  const cellText = (c: MatrixCell | undefined) => (c ? `${pct(c.rate)} [${pct(c.ci[0])}, ${pct(c.ci[1])}] (${c.passed}/${c.total})` : '–')
  const out = [
    `# Transfer matrix: ${m.skill}`,
    '',
    `Held-out success (Wilson 95% interval, passed/episodes) of the skill evolved with each source (rows) run by each executor (columns); \`initial\` is main's skill at \`${m.start.slice(0, 12)}\`, where every source started. Written by \`exp matrix\` (docs/matrix.md).`,
    '',
    `| skill from \\ executor | ${m.executors.map(md).join(' | ')} |`,
    `| --- | ${m.executors.map(() => '---').join(' | ')} |`,
    `| initial | ${m.executors.map(e => cellText(m.initial.find(c => c.executor === e))).join(' | ')} |`,
    ...m.sources.map(s => `| ${md(s.spec)} (v${s.evolve.promoted + 1}) | ${m.executors.map(e => cellText(m.cells.find(c => c.source === s.spec && c.executor === e))).join(' | ')} |`),
    '',
    '## Evolution per source',
    '',
    '| source | namespace | iterations | promoted | rejected | held-out (own executor) | episodes |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...m.sources.map(s => `| ${md(s.spec)} | \`${s.namespace.mainRef}\` | ${s.evolve.iterations} | ${s.evolve.promoted} | ${s.evolve.rejected} | ${pct(s.evolve.holdout_before)} → ${pct(s.evolve.holdout_after)} | ${s.evolve.episodes} |`),
    '',
    '## Rule classes',
    '',
    'Every rule of every evolved skill, classed from its measured effect on each executor (validation, leave-one-out and reworded; docs/matrix.md, "Rule classes").',
    '',
    '| source | line | class | rule | evidence |',
    '| --- | --- | --- | --- | --- |',
    ...m.sources.flatMap(s => s.rules.map(r => `| ${md(s.spec)} | ${r.line} | ${r.class}${r.measured ? '' : ' (by content)'} | ${md(r.rule)} | ${md(r.reason)} |`)),
    '',
    '## H4',
    '',
    `${m.h4.statement} **${m.h4.verdict}**.`,
    '',
    ...m.h4.evidence.map(e => `- ${md(e)}`),
    '',
  ]
  return out.join('\n')
}
