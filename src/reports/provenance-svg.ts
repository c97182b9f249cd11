import type {Provenance, ProposalChain, VersionProvenance} from '../projections/provenance.js'
import {escapeHtml as x} from './escape.js'
import {pct, short} from './format.js'
import {TRACES_SHOWN} from './provenance-text.js'
import {ruleText} from './rule-text.js'

/**
 * The provenance of a skill as a drawn graph (inline SVG, no script): failing traces →
 * evidence → knowledge → proposal → decision → version, left to right, one column per kind;
 * a node's full text is its tooltip (<title>). The same chains as the tree below it and the
 * Mermaid of report.md.
 */
const COLUMNS = ['failed trace', 'evidence', 'knowledge', 'proposal', 'decision', 'version'] as const
type Column = (typeof COLUMNS)[number]

interface Node {
  id: string
  column: Column
  title: string
  label: string
  cls: string
  row: number
}

const W = 190
const H = 38
const GAP_X = 46
const GAP_Y = 10
const PAD = 12
const HEAD = 22
const CHARS = 30

class Layout {
  readonly nodes = new Map<string, Node>()
  readonly edges = new Set<string>()
  private rows = new Map<Column, number>()

  node(id: string, column: Column, title: string, label: string, cls = ''): string {
    if (!this.nodes.has(id)) {
      const row = this.rows.get(column) ?? 0
      this.rows.set(column, row + 1)
      this.nodes.set(id, {id, column, title, label, cls, row})
    }
    return id
  }

  edge(from: string, to: string): void {
    this.edges.add(`${from}\n${to}`)
  }

  get height(): number {
    return Math.max(1, ...this.rows.values())
  }
}

function addChain(g: Layout, c: ProposalChain): string {
  const p = c.proposal
  const pr = g.node(p.id, 'proposal', `proposal ${p.id}`, `v${p.base.version ?? '?'} → v${p.head.version ?? '?'}, +${p.size.added} −${p.size.removed}`)
  for (const k of c.knowledge) {
    const kn = g.node(k.id, 'knowledge', `knowledge ${k.id}`, k.missing ? '(not in this clone)' : k.slug)
    g.edge(kn, pr)
    for (const e of k.evidence) {
      const ev = g.node(e.id, 'evidence', `evidence ${e.id}`, e.missing ? '(not in this clone)' : ruleText(e))
      g.edge(ev, kn)
      for (const t of e.traces.filter(t => t.outcome === 'failed').slice(0, TRACES_SHOWN)) g.edge(g.node(t.id, 'failed trace', `failed trace ${t.id}`, t.scenario ?? t.id, 'failure'), ev)
    }
  }
  const d = c.decision
  if (!d) return pr
  const verdict = d.verdict === 'accept' ? 'accept' : 'reject'
  const val = c.evaluations.find(e => e.split === 'validation' && e.role === 'candidate')
  const dc = g.node(d.id, 'decision', `decision ${d.id}`, `${d.verdict.toUpperCase()}${val ? `, validation ${pct(val.success_rate)}` : ''}`, verdict)
  g.edge(pr, dc)
  return dc
}

const clip = (s: string, n = CHARS) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

export function renderProvenanceSvg(p: Provenance, rejected: readonly ProposalChain[] = []): string {
  const g = new Layout()
  for (const v of [...p.versions].reverse()) {
    const vn = g.node(`${v.skill}@${v.version}`, 'version', `${v.skill} v${v.version} (${v.origin === 'initial' ? 'initial' : 'merge'} ${short(v.commit)})`, `${v.skill} v${v.version}`, 'version')
    if (v.proposal) g.edge(addChain(g, v as VersionProvenance & ProposalChain), vn)
  }
  for (const c of rejected) addChain(g, c)
  const x0 = (c: Column) => PAD + COLUMNS.indexOf(c) * (W + GAP_X)
  const y0 = (row: number) => PAD + HEAD + row * (H + GAP_Y)
  const width = PAD * 2 + COLUMNS.length * W + (COLUMNS.length - 1) * GAP_X
  const height = PAD * 2 + HEAD + g.height * (H + GAP_Y)
  const out = [`<svg class="exp-provenance" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="provenance graph of ${x(p.skill)}">`]
  out.push('<defs><marker id="exp-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#8a93a3"/></marker></defs>')
  out.push('<style>.n rect{fill:#f3f5f8;stroke:#8a93a3}.n.failure rect{fill:#fde2e1;stroke:#c0392b}.n.accept rect{fill:#e3f4e1;stroke:#2e7d32}.n.reject rect{fill:#f6e0e0;stroke:#8e2c2c}.n.version rect{fill:#e6eefc;stroke:#2c5aa0}.n text{font:11px ui-monospace,Menlo,monospace;fill:#1d2330}.n text.k{fill:#5b6472}.h{font:12px system-ui,sans-serif;fill:#5b6472}.e{fill:none;stroke:#8a93a3;stroke-width:1.2}</style>')
  for (const c of COLUMNS) out.push(`<text class="h" x="${x0(c)}" y="${PAD + 12}">${c}</text>`)
  for (const key of g.edges) {
    const [a, b] = key.split('\n') as [string, string]
    const from = g.nodes.get(a)!
    const to = g.nodes.get(b)!
    const [x1, y1, x2, y2] = [x0(from.column) + W, y0(from.row) + H / 2, x0(to.column), y0(to.row) + H / 2]
    const mid = (x1 + x2) / 2
    out.push(`<path class="e" d="M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2 - 2},${y2}" marker-end="url(#exp-arrow)"/>`)
  }
  for (const n of g.nodes.values()) {
    const [nx, ny] = [x0(n.column), y0(n.row)]
    out.push(`<g class="n${n.cls ? ` ${n.cls}` : ''}" data-id="${x(n.id)}"><title>${x(`${n.title}\n${n.label}`)}</title><rect x="${nx}" y="${ny}" width="${W}" height="${H}" rx="4"/><text class="k" x="${nx + 6}" y="${ny + 14}">${x(clip(n.title))}</text><text x="${nx + 6}" y="${ny + 29}">${x(clip(n.label))}</text></g>`)
  }
  out.push('</svg>')
  return out.join('\n')
}
