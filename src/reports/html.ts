import {creditHtml} from './credit.js'
import type {ChartPoint, Report, SkillReport} from './model.js'
import {dashboardLines} from './dashboard.js'
import {renderChart} from './chart.js'
import {renderProvenanceSvg} from './provenance-svg.js'
import {versionNode, chainNodes} from './provenance-text.js'
import {escapeHtml as h} from './escape.js'
import type {TreeNode} from './tree.js'
import {pct, short} from './format.js'
import type {ContractProvenance} from '../projections/contract-provenance.js'
import {researchHtml} from './research.js'

const CSS = `
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;max-width:1040px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem}h2{border-bottom:1px solid #d9dde3;padding-bottom:.2rem;margin-top:2.5rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d9dde3;padding:.2rem .6rem;text-align:right}th{background:#f3f5f8}
td.l,th.l{text-align:left}
pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:.6rem .8rem;overflow-x:auto;font-size:12.5px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:.8rem}
.accept{color:#2e7d32;font-weight:600}.reject{color:#c0392b;font-weight:600}
ul.tree{list-style:none;padding-left:1.1rem;border-left:1px dotted #c5cad3;margin:.2rem 0}ul.tree.root{border:0;padding-left:0}
ul.tree li{margin:.1rem 0;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px;word-break:break-all}
details{margin:.4rem 0}summary{cursor:pointer}
.exp-chart{max-width:100%;height:auto;border:1px solid #e1e4e8}
div.graph{overflow-x:auto;border:1px solid #e1e4e8;margin:.5rem 0}
`

/** A provenance tree as nested lists: readable without any script or diagram library. */
function treeHtml(nodes: readonly TreeNode[], root = false): string {
  if (!nodes.length) return ''
  return `<ul class="tree${root ? ' root' : ''}">${nodes.map(n => `<li>${h(n.label)}${treeHtml(n.children ?? [])}</li>`).join('')}</ul>`
}

const maybe = (x: number | undefined) => (x === undefined ? '–' : pct(x))

function chartTable(points: readonly ChartPoint[]): string {
  const rows = points.map(p => `<tr><td>${p.iteration}</td><td class="l">v${p.version}</td><td>${maybe(p.validation_before)}</td><td>${maybe(p.validation_after)}</td><td class="l${p.verdict ? ` ${p.verdict}` : ''}">${p.verdict ?? '–'}</td><td>${maybe(p.holdout)}</td></tr>`)
  return `<table><tr><th>iteration</th><th class="l">main after</th><th>validation before</th><th>validation candidate</th><th class="l">decision</th><th>held-out of main after</th></tr>${rows.join('')}</table>`
}

function skillSection(s: SkillReport): string {
  const out = [`<h2>${h(s.skill)} <small>(v${s.version} on main)</small></h2>`, '<h3>Success per iteration</h3>']
  out.push(...(s.chart.length ? [renderChart(s.chart, `${s.skill}: success per iteration`), chartTable(s.chart)] : ['<p>No iterations yet.</p>']))
  out.push('<h3>Iterations</h3>')
  out.push(s.iterations.length ? `<div class="grid">${s.iterations.map(it => `<pre>${h(dashboardLines(it).join('\n'))}</pre>`).join('')}</div>` : '<p>No proposal has been made for this skill yet.</p>')
  out.push('<h3>Rejected proposals</h3>')
  if (!s.rejected.length) out.push('<p>None.</p>')
  else {
    out.push('<ul>')
    for (const r of s.rejected) {
      const lines = r.lines.map(l => `<li>proposed: <code>${h(l)}</code></li>`).join('')
      const why = r.reasons.map(x => `<li>why: ${h(x)}</li>`).join('')
      out.push(`<li><span class="reject">rejected</span> <code>${h(r.proposal)}</code> (iteration ${r.iteration}, candidate v${r.version}), decision <code>${h(r.decision)}</code>${r.rejected_ref ? `, patch kept at <code>${h(r.rejected_ref)}</code>` : ''}<ul>${lines}${why}</ul><details><summary>its chain</summary>${treeHtml(chainNodes(r.chain), true)}</details></li>`)
    }
    out.push('</ul>')
  }
  out.push('<h3>Provenance</h3>', '<p>Each version of the skill, from the merge that promoted it down to the failing train traces its knowledge was mined from (rejected proposals too; hover a node for its full text).</p>')
  if (s.iterations.length) out.push(`<div class="graph">${renderProvenanceSvg(s.provenance, s.rejected.map(r => r.chain))}</div>`)
  for (const v of s.provenance.versions) {
    const n = versionNode(v)
    out.push(`<details${v.origin === 'promotion' ? ' open' : ''}><summary>${h(n.label)}</summary>${treeHtml(n.children ?? [], true)}</details>`)
  }
  return out.join('\n')
}

/** report.html: one self-contained page (inline CSS and SVG; no script, no external asset). */
export function renderHtml(r: Report): string {
  const title = 'Experience Compiler report'
  const intro = `<p>Main <code>${h(r.main.ref.replace(/^refs\/heads\//, ''))}</code> at <code>${h(short(r.main.commit))}</code>; ledger of ${r.ledger.records} records up to lamport ${r.ledger.lamport}. Rebuilt from the repository alone (<code>exp report</code>).</p>`
  const body = (r.skills.length ? r.skills.map(skillSection).join('\n') : '<p>No skill on main has a version yet.</p>') + (r.contracts ?? []).map(contractSection).join('\n') + (r.research ? `\n${researchHtml(r.research)}` : '') + (r.credit?.length ? creditHtml(r.credit, h) : '')
  return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title}</title>\n<style>${CSS}</style>\n</head>\n<body>\n<h1>${title}</h1>\n${intro}\n${body}\n</body>\n</html>\n`
}

/** A research contract: its promoted attempts with dev and held-out against the baseline, its rejections. */
function contractSection(c: ContractProvenance): string {
  const n = (x: number | undefined) => (x === undefined ? '–' : String(x))
  const rows = c.versions.slice(1).map(v => `<tr><td>v${v.version}</td><td>#${v.attempt?.ordinal ?? '?'} <code>${h(v.attempt?.id ?? v.missing.join(' '))}</code></td><td>${h(v.attempt?.reason ?? '')}</td><td>${n(v.dev?.baseline)} → ${n(v.dev?.mean)}</td><td>${n(v.holdout?.baseline)} → ${n(v.holdout?.mean)}</td><td>${v.unverified ? `<strong>unverified</strong>: ${h(v.unverified)}` : 'promoted'}</td></tr>`)
  const rejected = c.rejected.map(r => `<li>#${r.ordinal} <code>${h(r.id)}</code> (${h(r.lane)}) ${h(r.reason ?? '')}: ${h(r.why)}</li>`)
  return `<section><h2>Contract ${h(c.contract)}</h2><p>v${c.main.version} on main; ${c.versions.length - 1} promotion(s), ${c.rejected.length} rejected attempt(s).</p><table><thead><tr><th>version</th><th>attempt</th><th>what</th><th>dev</th><th>held-out</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>${rejected.length ? `<ul>${rejected.join('')}</ul>` : ''}</section>`
}
