import type {ChartPoint} from './model.js'
import {escapeHtml} from './escape.js'
import {pct} from './format.js'

const W = 640
const H = 300
const M = {left: 48, right: 20, top: 28, bottom: 60}
const COLORS = {holdout: '#2e7d32', after: '#2c5aa0', before: '#8a8f98', reject: '#c0392b'}

const r1 = (x: number) => Math.round(x * 10) / 10

interface Series {
  key: 'holdout' | 'validation_after' | 'validation_before'
  name: string
  color: string
  dashed?: boolean
}

const SERIES: Series[] = [
  {key: 'validation_before', name: 'validation, main before', color: COLORS.before, dashed: true},
  {key: 'validation_after', name: 'validation, candidate', color: COLORS.after},
  {key: 'holdout', name: 'held-out, main after', color: COLORS.holdout},
]

/**
 * The success-per-iteration chart as a standalone SVG (pure string; no script, no external
 * asset): validation of main and of the candidate at each iteration, and the held-out
 * success of main after it. A hollow red point is a rejected candidate.
 */
export function renderChart(points: readonly ChartPoint[], title: string): string {
  const n = Math.max(1, points.length - 1)
  const pw = W - M.left - M.right
  const ph = H - M.top - M.bottom
  const x = (i: number) => r1(M.left + (points.length === 1 ? pw / 2 : (i / n) * pw))
  const y = (v: number) => r1(M.top + (1 - v) * ph)
  const out: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" class="exp-chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(title)}">`, `<title>${escapeHtml(title)}</title>`, `<rect x="0" y="0" width="${W}" height="${H}" fill="#ffffff"/>`]
  for (const g of [0, 0.25, 0.5, 0.75, 1]) {
    out.push(`<line x1="${M.left}" y1="${y(g)}" x2="${W - M.right}" y2="${y(g)}" stroke="#e3e5e8"/>`, `<text x="${M.left - 6}" y="${y(g) + 4}" font-size="11" text-anchor="end" fill="#555">${g * 100}%</text>`)
  }
  points.forEach((p, i) => out.push(`<text x="${x(i)}" y="${H - M.bottom + 16}" font-size="11" text-anchor="middle" fill="#555">${p.iteration}</text>`))
  out.push(`<text x="${M.left + pw / 2}" y="${H - M.bottom + 32}" font-size="11" text-anchor="middle" fill="#333">iteration (0 = before the first proposal)</text>`)
  for (const s of SERIES) {
    // a missing value breaks the line: a gap is honest, an interpolated point is not
    let seg: string[] = []
    const flush = () => {
      if (seg.length > 1) out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''} points="${seg.join(' ')}"/>`)
      seg = []
    }
    points.forEach((p, i) => {
      const v = p[s.key]
      if (v === undefined) return flush()
      seg.push(`${x(i)},${y(v)}`)
    })
    flush()
    points.forEach((p, i) => {
      const v = p[s.key]
      if (v === undefined) return
      const rejected = s.key === 'validation_after' && p.verdict === 'reject'
      const label = `iteration ${p.iteration}: ${s.name} ${pct(v)}${rejected ? ' (rejected)' : ''}`
      out.push(`<circle cx="${x(i)}" cy="${y(v)}" r="4" fill="${rejected ? '#ffffff' : s.color}" stroke="${rejected ? COLORS.reject : s.color}" stroke-width="2"><title>${escapeHtml(label)}</title></circle>`)
    })
  }
  SERIES.forEach((s, i) => {
    const lx = M.left + i * 190
    const ly = H - 14
    out.push(`<line x1="${lx}" y1="${ly - 4}" x2="${lx + 22}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''}/>`, `<text x="${lx + 28}" y="${ly}" font-size="11" fill="#333">${escapeHtml(s.name)}</text>`)
  })
  out.push('</svg>')
  return out.join('\n')
}
