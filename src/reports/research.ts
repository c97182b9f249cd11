import type {Ledger, LedgerEntry} from '../store/index.js'
import type {EvaluationBody, ManifestBody} from '../records/types.js'
import type {HistoryTrust} from '../projections/mainline.js'
import type {VerifiedEpisode} from '../evals/runner/summary.js'
import {compareRuns} from '../evals/compare.js'
import {citedVerifications} from '../trust/evaluation.js'
import {canonicalJson} from '../records/canonical.js'
import type {MemoryMode} from '../evals/runner/memory.js'
import {ARMS, ARM_SPECS, type Arm} from '../loop/compare/arms.js'
import {hypotheses as judge, pairwise, type ArmEpisodes} from '../loop/compare/verdicts.js'
import {escapeHtml} from './escape.js'
import {mdText, pct} from './format.js'
import {readResearchNote, RESEARCH_LANE, type CompareNote, type GainNote, type SkippedNote} from './notes.js'

/** One arm of the latest `exp compare`, its numbers read from its own held-out evaluation record. */
export interface ResearchArm {
  arm: string
  mode: string
  success: number
  ci: [number, number]
  passed: number
  total: number
  episodes: number
  evaluation: string
}

export interface ResearchResults {
  /** `recomputed`: the paired tests and verdicts recomputed here from the verifications of the arms' held-out episodes (false: as the note states them, those being on a private lane this clone does not have) */
  compare?: {id: string; note: string; arms: ResearchArm[]; hypotheses: {id: string; verdict: string; evidence: string}[]; pairs: {a: string; b: string; diff: number; mcnemar_p: number; bootstrap_ci: [number, number]}[]; recomputed: boolean}
  /** the success rates and intervals from each side's held-out evaluation; `metrics`: the note's word, not recomputed */
  gain?: {id: string; note: string; gain: number; ci: [number, number]; mcnemar_p: number; pairs: number; sides: {mode: string; success: number; ci: [number, number]; metrics: Record<string, number | null>}[]; recomputed: boolean}
}

/**
 * The notes of a kind (`compare` or `gain`) on their own lanes (`cmp-<id>`, `gain-<id>`), read
 * by their typed reader (reports/notes.ts), newest first. Each malformed one is passed to
 * `skipped` before any is returned, and left out.
 */
function newest(ledger: Ledger, kind: 'compare', skipped?: (s: SkippedNote) => void): {id: string; note: string; json: CompareNote}[]
function newest(ledger: Ledger, kind: 'gain', skipped?: (s: SkippedNote) => void): {id: string; note: string; json: GainNote}[]
function newest(ledger: Ledger, kind: 'compare' | 'gain', skipped?: (s: SkippedNote) => void): {id: string; note: string; json: CompareNote | GainNote}[] {
  const lane = RESEARCH_LANE[kind]
  const notes = ledger.select({kinds: ['note'], includePrivate: false}).filter(e => e.lane.startsWith(lane) && /^(cmp|gain)-[0-9a-f]{12}$/.test(e.lane))
  const out: {id: string; note: string; json: CompareNote | GainNote}[] = []
  for (let i = notes.length - 1; i >= 0; i--) {
    const e = notes[i]!
    const read = readResearchNote(kind, e.lane, ledger.load<'note'>(e).body.text)
    if (!read) continue
    if ('problem' in read) skipped?.({note: e.id, problem: read.problem})
    else out.push({id: read.value.id, note: e.id, json: read.value})
  }
  return out
}

/**
 * What `exp compare` records of an arm and `exp gain` of a side (src/loop/compare/run.ts,
 * src/loop/gain/run.ts): a held-out evaluation, of a public held-out manifest on the
 * namespace's own lane, run in that namespace and memory mode. The manifest, or undefined for
 * anything else — a validation or train evaluation re-labelled onto such a lane among them.
 */
export function heldOutManifest(ledger: Ledger, ev: {body: EvaluationBody} | undefined, ns: string, mode: MemoryMode): ManifestBody | undefined {
  const m = ev && ev.body.split === 'holdout' ? ledger.get(ev.body.manifest) : undefined
  const mb = m?.kind === 'manifest' && !m.private && m.lane === ns ? ledger.load<'manifest'>(m).body : undefined
  return mb && mb.split === 'holdout' && mb.namespace === ns && (mb.memory?.mode ?? 'record_only') === mode ? mb : undefined
}

/** Two held-out manifests of the same episodes, as the arms of one compare and the sides of one gain are: the same scenarios (tree, sealed file), seed, repetitions and agent. */
export function sameHeldOutEpisodes(a: ManifestBody, b: ManifestBody): boolean {
  return a.dataset.tree === b.dataset.tree && a.dataset.sealed?.blob === b.dataset.sealed?.blob && canonicalJson(a.dataset.scenarios) === canonicalJson(b.dataset.scenarios) && a.seed === b.seed && a.repeat === b.repeat && canonicalJson(a.agent) === canonicalJson(b.agent)
}

/**
 * The latest `exp compare` and `exp gain` results (pure, from the ledger): which arms and
 * modes from the note each command records; every success rate and interval from the arm's
 * own held-out evaluation record, on the arm's own lane — an arm whose evaluation is not there
 * (or on another lane), does not stand (`trust`: it must recompute from the verifications
 * it cites) or is not what the command records (`heldOutManifest`), is left out, whatever the
 * note says; a note whose arms (sides) are not on the same held-out episodes is passed over. Any lane can write a note on lane `cmp-<id>`:
 * so the paired tests and the verdicts are recomputed from the verifications of every arm's
 * held-out episodes (the public evaluation is an aggregate; its details are on the lane's
 * private ref in the clone that ran it), and are taken from the note (and said to be) only
 * where this clone does not have them. A note whose fields are not of their types (any lane can
 * write one) is passed to `o.skipped` and left out (reports/notes.ts).
 */
export function researchResults(ledger: Ledger, trust?: Pick<HistoryTrust, 'counts'>, o: {skipped?: (s: SkippedNote) => void} = {}): ResearchResults | undefined {
  const out: ResearchResults = {}
  const counts = (id: string) => !trust || trust.counts(id)
  // the verifications of each episode an evaluation counts: its own, or, for a public held-out
  // aggregate, those of the evaluation of the same manifest on the lane's private ref (where
  // this clone ran it; another clone does not have it)
  const episodesOf = (e: LedgerEntry, body: EvaluationBody): VerifiedEpisode[] | undefined => {
    const own = citedVerifications(ledger, e, body)
    if (own.length && own.length === body.total) return own
    for (const p of ledger.select({kinds: ['evaluation'], lanes: [e.lane]})) {
      if (!p.private || p.id === e.id || !counts(p.id)) continue
      const pb = ledger.load<'evaluation'>(p).body
      if (pb.manifest !== body.manifest || pb.total !== body.total || pb.passed !== body.passed) continue
      const vs = citedVerifications(ledger, p, pb)
      if (vs.length === pb.total) return vs
    }
    return undefined
  }
  const evalOf = (id: string, lane: string) => {
    const e = ledger.get(id)
    if (!e || e.kind !== 'evaluation' || e.private || e.lane !== lane || !counts(id)) return undefined
    const body = ledger.load<'evaluation'>(e).body
    return {body, verified: episodesOf(e, body)}
  }
  // the newest note with an arm that stands (a note any lane wrote about nothing that stands hides nothing)
  for (const c of newest(ledger, 'compare', o.skipped)) {
    const arms: ResearchArm[] = []
    const episodes: ArmEpisodes[] = []
    const manifests: ManifestBody[] = []
    let all = true
    for (const a of c.json.arms) {
      const ns = `cmp-${c.id}-${a.arm}`
      const known = (ARMS as readonly string[]).includes(a.arm) && a.namespace === ns
      const ev = known ? evalOf(a.evaluation, ns) : undefined
      // the mode the arm runs in (not the note's word): its manifest must have been run in it
      const mode = known ? ARM_SPECS[a.arm as Arm].mode : undefined
      const manifest = mode ? heldOutManifest(ledger, ev, ns, mode) : undefined
      if (!ev || !mode || !manifest || arms.some(x => x.arm === a.arm)) continue
      const b = ev.body
      arms.push({arm: a.arm, mode, success: b.success_rate, ci: b.ci as [number, number], passed: b.passed, total: b.total, episodes: a.episodes, evaluation: a.evaluation})
      episodes.push({arm: a.arm as Arm, success: b.success_rate, ci: b.ci as [number, number], total: b.total, evaluation: a.evaluation, verified: ev.verified ?? []})
      manifests.push(manifest)
      all &&= ev.verified !== undefined
    }
    // every arm on the same held-out episodes, as exp compare runs them (and exp gain its sides)
    if (arms.length && manifests.every(m => sameHeldOutEpisodes(m, manifests[0]!))) {
      const pairs = all ? pairwise(episodes) : undefined
      const hypotheses = pairs ? judge(episodes, pairs).map(h => ({id: h.id, verdict: h.verdict, evidence: h.evidence})) : (c.json.hypotheses ?? [])
      out.compare = {id: c.id, note: c.note, arms, hypotheses, pairs: pairs ? pairs.map(p => ({a: p.a, b: p.b, diff: p.diff, mcnemar_p: p.mcnemar_p, bootstrap_ci: p.bootstrap_ci})) : (c.json.pairs ?? []), recomputed: all}
      break
    }
  }
  for (const g of newest(ledger, 'gain', o.skipped)) {
    const sides = [g.json.closed_loop, g.json.off].map((s, i) => {
      // the mode the side runs in (not the note's word): its manifest must have been run in it
      const mode = i ? 'off' : 'closed_loop'
      const ns = `gain-${g.id}-${mode}`
      const ev = s.namespace === ns ? evalOf(s.evaluation, s.namespace) : undefined
      return {s, mode, ev, manifest: heldOutManifest(ledger, ev, ns, mode)}
    })
    // both sides on the same held-out episodes
    const [a, b] = sides.map(x => x.manifest)
    const paired = a && b && sameHeldOutEpisodes(a, b)
    if (paired && sides.every(x => x.ev)) {
      const on: VerifiedEpisode[] | undefined = sides[0]!.ev!.verified
      const off: VerifiedEpisode[] | undefined = sides[1]!.ev!.verified
      const again = on && off ? compareRuns(sides[1]!.s.evaluation, off, on) : undefined
      out.gain = {
        id: g.id,
        note: g.note,
        gain: sides[0]!.ev!.body.success_rate - sides[1]!.ev!.body.success_rate,
        ci: again ? (again.bootstrap_ci as [number, number]) : (g.json.ci ?? [0, 0]),
        mcnemar_p: again ? again.mcnemar_p : (g.json.mcnemar_p ?? 1),
        pairs: again ? again.wins + again.losses + again.ties : (g.json.pairs ?? 0),
        sides: sides.map(x => ({mode: x.mode, success: x.ev!.body.success_rate, ci: x.ev!.body.ci as [number, number], metrics: x.s.metrics})),
        recomputed: again !== undefined,
      }
      break
    }
  }
  return out.compare || out.gain ? out : undefined
}

/** What the report says of a gain's four learning metrics: the note's word (they are counted over the side's whole namespace when `exp gain` runs). */
export const METRICS_AS_RECORDED = 'The four metrics are as the gain note records them: they are not recomputed here.'

/** What a view says when the paired tests are the note's, not recomputed (a sealed held-out split). */
export const AS_RECORDED = 'The paired tests and verdicts are as the note records them: the held-out episodes are on a private lane this clone does not have, so they are not recomputed here.'

const W = 640
const H = 300
const M = {left: 48, right: 20, top: 28, bottom: 48}
const r1 = (x: number) => Math.round(x * 10) / 10

/** The held-out success of each arm as bars with their 95% intervals (standalone SVG, no script). */
export function renderCompareChart(arms: readonly ResearchArm[], title: string): string {
  const pw = W - M.left - M.right
  const ph = H - M.top - M.bottom
  const y = (v: number) => r1(M.top + (1 - v) * ph)
  const slot = pw / Math.max(1, arms.length)
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" class="exp-chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(title)}">`, `<title>${escapeHtml(title)}</title>`, `<rect x="0" y="0" width="${W}" height="${H}" fill="#ffffff"/>`]
  for (const g of [0, 0.25, 0.5, 0.75, 1]) out.push(`<line x1="${M.left}" y1="${y(g)}" x2="${W - M.right}" y2="${y(g)}" stroke="#e3e5e8"/>`, `<text x="${M.left - 6}" y="${y(g) + 4}" font-size="11" text-anchor="end" fill="#555">${g * 100}%</text>`)
  arms.forEach((a, i) => {
    const cx = r1(M.left + slot * (i + 0.5))
    const bw = r1(Math.min(80, slot * 0.5))
    out.push(
      `<rect x="${r1(cx - bw / 2)}" y="${y(a.success)}" width="${bw}" height="${r1(y(0) - y(a.success))}" fill="${a.arm === 'compiler' ? '#2e7d32' : '#2c5aa0'}"><title>${escapeHtml(`${a.arm}: ${pct(a.success)} [${pct(a.ci[0])}, ${pct(a.ci[1])}]`)}</title></rect>`,
      `<line x1="${cx}" y1="${y(a.ci[0])}" x2="${cx}" y2="${y(a.ci[1])}" stroke="#222" stroke-width="1.5"/>`,
      `<line x1="${r1(cx - 8)}" y1="${y(a.ci[0])}" x2="${r1(cx + 8)}" y2="${y(a.ci[0])}" stroke="#222"/>`,
      `<line x1="${r1(cx - 8)}" y1="${y(a.ci[1])}" x2="${r1(cx + 8)}" y2="${y(a.ci[1])}" stroke="#222"/>`,
      `<text x="${cx}" y="${H - M.bottom + 16}" font-size="12" text-anchor="middle" fill="#222">${escapeHtml(a.arm)}</text>`,
      `<text x="${cx}" y="${H - M.bottom + 30}" font-size="11" text-anchor="middle" fill="#555">${pct(a.success)}</text>`,
    )
  })
  out.push(`<text x="${M.left}" y="16" font-size="12" fill="#222">${escapeHtml(title)}</text>`, '</svg>')
  return out.join('\n')
}

export const COMPARE_CHART = 'chart-compare.svg'

const rate = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : pct(x))
const pts = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`
const METRICS: [string, string][] = [['repeated_failure_rate', 'repeated-failure rate'], ['invalid_rate', 'invalid rate'], ['recalled_cited_rate', 'recalled lessons cited by proposals'], ['hypothesis_redundancy', 'hypothesis redundancy']]

/** The Markdown section of `exp report`: the compare chart, arms and verdicts; the Experience Gain and its metrics. */
export function researchMarkdown(r: ResearchResults): string {
  const out: string[] = ['## Research questions', '']
  if (r.compare) {
    out.push(`Latest \`exp compare\` (${mdText(r.compare.id)}, note ${mdText(r.compare.note)}): held-out success per arm with 95% Wilson intervals.`, '', `![held-out success per arm](${COMPARE_CHART})`, '', '| arm | mode | held-out | 95% CI | passed / total | episodes |', '| --- | --- | ---: | --- | ---: | ---: |')
    for (const a of r.compare.arms) out.push(`| ${mdText(a.arm)} | ${mdText(a.mode)} | ${pct(a.success)} | [${pct(a.ci[0])}, ${pct(a.ci[1])}] | ${a.passed} / ${a.total} | ${a.episodes} |`)
    out.push('')
    for (const h of r.compare.hypotheses) out.push(`- **${mdText(h.id)}: ${mdText(h.verdict)}.** ${mdText(h.evidence)}.`)
    out.push('')
    if (!r.compare.recomputed) out.push(AS_RECORDED, '')
  }
  if (r.gain) {
    const [c, o] = r.gain.sides
    out.push(`**Experience Gain ${pts(r.gain.gain)} points** (\`exp gain\` ${mdText(r.gain.id)}): closed_loop ${pct(c!.success)} − off ${pct(o!.success)} on ${r.gain.pairs} paired held-out episodes, paired bootstrap 95% CI [${pts(r.gain.ci[0])}, ${pts(r.gain.ci[1])}].`, '', '| | closed_loop | off |', '| --- | ---: | ---: |')
    for (const [k, name] of METRICS) out.push(`| ${name} | ${rate(c!.metrics[k])} | ${rate(o!.metrics[k])} |`)
    out.push('', METRICS_AS_RECORDED, '')
    if (!r.gain.recomputed) out.push(AS_RECORDED.replace('and verdicts are', 'are'), '')
  }
  return out.join('\n')
}

/** The same section for report.html, with the chart inline. */
export function researchHtml(r: ResearchResults): string {
  const h = escapeHtml
  const parts: string[] = ['<section><h2>Research questions</h2>']
  if (r.compare) {
    parts.push(`<p>Latest <code>exp compare</code> (${h(r.compare.id)}, note <code>${h(r.compare.note)}</code>): held-out success per arm with 95% Wilson intervals.</p>`, renderCompareChart(r.compare.arms, 'held-out success per arm'))
    parts.push(`<table><thead><tr><th>arm</th><th>mode</th><th>held-out</th><th>95% CI</th><th>passed / total</th><th>episodes</th></tr></thead><tbody>${r.compare.arms.map(a => `<tr><td>${h(a.arm)}</td><td>${h(a.mode)}</td><td>${pct(a.success)}</td><td>[${pct(a.ci[0])}, ${pct(a.ci[1])}]</td><td>${a.passed} / ${a.total}</td><td>${a.episodes}</td></tr>`).join('')}</tbody></table>`)
    parts.push(`<ul>${r.compare.hypotheses.map(x => `<li><strong>${h(x.id)}: ${h(x.verdict)}.</strong> ${h(x.evidence)}.</li>`).join('')}</ul>`)
    if (!r.compare.recomputed) parts.push(`<p>${h(AS_RECORDED)}</p>`)
  }
  if (r.gain) {
    const [c, o] = r.gain.sides
    parts.push(`<p><strong>Experience Gain ${pts(r.gain.gain)} points</strong> (<code>exp gain</code> ${h(r.gain.id)}): closed_loop ${pct(c!.success)} − off ${pct(o!.success)} on ${r.gain.pairs} paired held-out episodes, paired bootstrap 95% CI [${pts(r.gain.ci[0])}, ${pts(r.gain.ci[1])}].</p>`)
    parts.push(`<table><thead><tr><th></th><th>closed_loop</th><th>off</th></tr></thead><tbody>${METRICS.map(([k, name]) => `<tr><td>${h(name)}</td><td>${rate(c!.metrics[k])}</td><td>${rate(o!.metrics[k])}</td></tr>`).join('')}</tbody></table>`, `<p>${h(METRICS_AS_RECORDED)}</p>`)
    if (!r.gain.recomputed) parts.push(`<p>${h(AS_RECORDED.replace('and verdicts are', 'are'))}</p>`)
  }
  parts.push('</section>')
  return parts.join('\n')
}

