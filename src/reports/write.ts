import type {Report} from './model.js'
import {renderMarkdown, chartFile} from './markdown.js'
import {renderHtml} from './html.js'
import {renderChart} from './chart.js'
import {COMPARE_CHART, renderCompareChart} from './research.js'
import {writeOutputFiles} from '../write-output.js'

export interface WrittenReport {
  dir: string
  files: string[]
}

/** The files every report writes (and a chart per skill with iterations). */
export const REPORT_FILES = ['report.md', 'report.html'] as const

/** Write report.md, report.html and one chart SVG per skill with iterations (the Markdown links them) into `dir`. */
export async function writeReport(r: Report, dir: string): Promise<WrittenReport> {
  const files: [string, string][] = [
    [REPORT_FILES[0], renderMarkdown(r)],
    [REPORT_FILES[1], renderHtml(r)],
    ...r.skills.filter(s => s.chart.length).map((s): [string, string] => [chartFile(s.skill), `${renderChart(s.chart, `${s.skill}: success per iteration`)}\n`]),
    ...(r.research?.compare ? [[COMPARE_CHART, `${renderCompareChart(r.research.compare.arms, 'held-out success per arm')}\n`] as [string, string]] : []),
  ]
  // (every name checked before the first file is replaced: writeOutputFiles)
  return {dir, files: await writeOutputFiles(dir, files)}
}
