import {mkdir} from 'node:fs/promises'
import path from 'node:path'
import type {Report} from './model.js'
import {renderMarkdown, chartFile} from './markdown.js'
import {renderHtml} from './html.js'
import {renderChart} from './chart.js'
import {COMPARE_CHART, renderCompareChart} from './research.js'
import {writeOutputFile} from '../write-output.js'

export interface WrittenReport {
  dir: string
  files: string[]
}

/** Write report.md, report.html and one chart SVG per skill with iterations (the Markdown links them) into `dir`. */
export async function writeReport(r: Report, dir: string): Promise<WrittenReport> {
  await mkdir(dir, {recursive: true})
  const files: [string, string][] = [
    ['report.md', renderMarkdown(r)],
    ['report.html', renderHtml(r)],
    ...r.skills.filter(s => s.chart.length).map((s): [string, string] => [chartFile(s.skill), `${renderChart(s.chart, `${s.skill}: success per iteration`)}\n`]),
    ...(r.research?.compare ? [[COMPARE_CHART, `${renderCompareChart(r.research.compare.arms, 'held-out success per arm')}\n`] as [string, string]] : []),
  ]
  for (const [name, text] of files) await writeOutputFile(path.join(dir, name), text)
  return {dir, files: files.map(([name]) => path.join(dir, name))}
}
