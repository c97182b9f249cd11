import {creditMarkdown} from './credit.js'
import type {ChartPoint, Report, SkillReport} from './model.js'
import {dashboardLines} from './dashboard.js'
import {renderMermaid} from './mermaid.js'
import {renderForest} from './tree.js'
import {versionNode} from './provenance-text.js'
import {mdText, pct, short} from './format.js'
import type {ContractProvenance} from '../projections/contract-provenance.js'
import {researchMarkdown} from './research.js'

/** The file the Markdown report links for a skill's chart (written beside report.md). */
export const chartFile = (skill: string) => `chart-${skill}.svg`

const maybe = (x: number | undefined) => (x === undefined ? '–' : pct(x))

/** A fence longer than any run of backticks inside, so no content can close it. */
function fenced(lang: string, body: string): string {
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map(m => m.length))
  const fence = '`'.repeat(longest + 1)
  return `${fence}${lang}\n${body}\n${fence}`
}

function chartTable(points: readonly ChartPoint[]): string {
  const rows = points.map(p => `| ${p.iteration} | v${p.version} | ${maybe(p.validation_before)} | ${maybe(p.validation_after)} | ${p.verdict ?? '–'} | ${maybe(p.holdout)} |`)
  return ['| iteration | main after | validation before | validation candidate | decision | held-out of main after |', '| ---: | --- | ---: | ---: | --- | ---: |', ...rows].join('\n')
}

function skillSection(s: SkillReport): string {
  const parts = [`## ${s.skill} (v${s.version} on main)`, '', '### Success per iteration', '']
  parts.push(...(s.chart.length ? [`![success per iteration of ${s.skill}](${chartFile(s.skill)})`, '', chartTable(s.chart)] : ['No iterations yet.']), '')
  parts.push('### Iterations', '')
  if (!s.iterations.length) parts.push('No proposal has been made for this skill yet.', '')
  for (const it of s.iterations) parts.push(fenced('text', dashboardLines(it).join('\n')), '')
  parts.push('### Rejected proposals', '')
  if (!s.rejected.length) parts.push('None.', '')
  for (const r of s.rejected) {
    parts.push(`- **${mdText(r.proposal)}** (iteration ${r.iteration}, candidate v${r.version}), decision ${mdText(r.decision)}${r.rejected_ref ? `, patch kept at ${mdText(r.rejected_ref)}` : ''}`)
    for (const l of r.lines) parts.push(`  - proposed: ${mdText(l)}`)
    for (const why of r.reasons) parts.push(`  - why: ${mdText(why)}`)
  }
  parts.push('', '### Provenance', '', fenced('mermaid', renderMermaid(s.provenance, s.rejected.map(r => r.chain))), '', fenced('text', renderForest(s.provenance.versions.map(versionNode))), '')
  return parts.join('\n')
}

/** report.md: the dashboards, the chart (as a linked SVG file and a table), the rejections and the provenance graph. */
export function renderMarkdown(r: Report): string {
  const head = ['# Experience Compiler report', '', `Main \`${r.main.ref.replace(/^refs\/heads\//, '')}\` at \`${short(r.main.commit)}\`; ledger of ${r.ledger.records} records up to lamport ${r.ledger.lamport}. Rebuilt from the repository alone (\`exp report\`).`, '']
  if (!r.skills.length) head.push('No skill on main has a version yet.', '')
  return [...head, ...r.skills.map(skillSection), ...(r.contracts ?? []).map(contractSection), ...(r.research ? [researchMarkdown(r.research)] : []), ...(r.credit?.length ? [creditMarkdown(r.credit)] : [])].join('\n')
}

const num = (x: number | undefined) => (x === undefined ? '–' : String(x))

/** A research contract: its versions on main (dev and held-out against the baseline) and its rejected attempts. */
function contractSection(c: ContractProvenance): string {
  const out = [`## Contract ${mdText(c.contract)}`, '', `v${c.main.version} on main; ${c.versions.length - 1} promotion(s), ${c.rejected.length} rejected attempt(s).`, '', '| version | attempt | what | dev | held-out | |', '| --- | --- | --- | --- | --- | --- |']
  for (const v of c.versions.slice(1)) out.push(`| v${v.version} | #${v.attempt?.ordinal ?? '?'} \`${v.attempt?.id ?? v.missing.join(' ')}\` | ${mdText(v.attempt?.reason ?? '')} | ${num(v.dev?.baseline)} → ${num(v.dev?.mean)} | ${num(v.holdout?.baseline)} → ${num(v.holdout?.mean)} | ${v.unverified ? `**unverified**: ${mdText(v.unverified)}` : 'promoted'} |`)
  if (c.rejected.length) {
    out.push('', 'Rejected:', '')
    for (const r of c.rejected) out.push(`- #${r.ordinal} \`${r.id}\` (${mdText(r.lane)})${r.reason ? ` ${mdText(r.reason)}` : ''}: ${mdText(r.why)}`)
  }
  return [...out, ''].join('\n')
}
