import type {Ledger} from '../store/index.js'
import type {Ablation, UnitCredit} from '../matrix/ablate.js'
import {readAblationNote, type AblationNoteBody, type SkippedNote} from './notes.js'
import {r4, withoutLines} from '../matrix/variants.js'
import {hashObject} from '../records/object-id.js'
import type {Split} from '../records/types.js'
import type {Blame} from '../projections/blame.js'
import {mdText} from './format.js'

/**
 * Ablation credit in the history views (docs/matrix.md, "Ablation"): the latest `exp ablate`
 * note of a SKILL.md blob, each line's credit beside `exp blame`, and a section of `exp report`.
 * Pure over the ledger; the note cites the evaluations every number comes from.
 */
export type AblationNote = AblationNoteBody & {note: string}

/** What an ablation note is checked against before a view shows it. */
export interface AblationCheck {
  /** the SKILL.md blob it must be of */
  blob: string
  /** that blob's text: each variant measured must be it without the unit's lines */
  text: string
  /** whether an evaluation counts (trust/authority.ts); default: every one does */
  counts?: (id: string) => boolean
  /** told of each ablation note (of any blob) whose fields are not of their types: it is not shown (reports/notes.ts) */
  skipped?: (s: SkippedNote) => void
}

/**
 * Every ablation note of one SKILL.md blob whose numbers re-derive from the evaluations it
 * names, oldest first. A note is text any lane can write: one that names an evaluation that
 * does not count, is of another split or skill, or states a rate, credit, interval or count its
 * evaluations do not give is not shown (the interval and counts are checked where the public
 * record has the paired comparison: held-out keeps it on the private lane). One whose fields are
 * not of their types is not shown either, and is passed to `check.skipped`.
 */
export function ablationNotes(ledger: Ledger, check: AblationCheck): AblationNote[] {
  const out: AblationNote[] = []
  for (const e of ledger.select({kinds: ['note'], includePrivate: false})) {
    const read = readAblationNote(ledger.load<'note'>(e).body.text)
    if (!read) continue
    if ('problem' in read) check.skipped?.({note: e.id, problem: read.problem})
    else if (read.value.blob === check.blob && standsOn(ledger, read.value, check)) out.push({...read.value, note: e.id})
  }
  return out
}

/**
 * The ablation a view shows for a SKILL.md blob: the latest that re-derives (ablationNotes) of a
 * commit on the viewed main's first-parent line (`line`), else the latest of any commit. The same
 * file ablated on another branch (`exp ablate --main`) re-derives as well, but its version and
 * patch units (the promotions that added lines) are that branch's history, not this one's.
 */
export function latestAblation(ledger: Ledger, check: AblationCheck, line: Iterable<string> = []): AblationNote | undefined {
  const notes = ablationNotes(ledger, check)
  const on = new Set(line)
  return notes.filter(n => on.has(n.commit)).pop() ?? notes.pop()
}

/** Whether a note of the shape its reader checks (reports/notes.ts) re-derives from the evaluations it names. */
function standsOn(ledger: Ledger, n: AblationNoteBody, check: AblationCheck): boolean {
  const counts = check.counts ?? (() => true)
  const evaluation = (id: unknown, split: Split) => {
    const e = typeof id === 'string' ? ledger.get(id) : undefined
    if (!e || e.kind !== 'evaluation' || !counts(e.id)) return undefined
    const body = ledger.load<'evaluation'>(e).body
    return body.split === split ? body : undefined
  }
  const lines = check.text.split('\n')
  for (const split of n.splits) {
    const base = n.baseline[split]
    const b = base && evaluation(base.evaluation, split)
    if (!b || b.skill.blob !== check.blob || b.success_rate !== base.rate || b.agent.name !== n.agent || (b.repeat !== undefined && b.repeat !== n.repeat)) return false
    for (const u of n.units) {
      const c = u.credit[split]
      const v = c && evaluation(c.evaluation, split)
      if (!v || !u.lines.every(l => l <= lines.length)) return false
      if (u.text.some((t, i) => lines[u.lines[i]! - 1] !== t)) return false
      if (v.skill.blob !== hashObject('blob', Buffer.from(withoutLines(check.text, u.lines)))) return false
      if (v.success_rate !== c.rate || c.credit !== r4(b.success_rate - v.success_rate)) return false
      const cmp = v.comparison
      if (cmp && (cmp.baseline !== base.evaluation || c.wins !== cmp.losses || c.losses !== cmp.wins || c.episodes !== cmp.wins + cmp.losses + cmp.ties || c.ci[0] !== r4(-cmp.bootstrap_ci[1]) || c.ci[1] !== r4(-cmp.bootstrap_ci[0]))) return false
      if (!cmp && split !== 'holdout') return false
    }
  }
  return n.units.every(u => u.removal === n.splits.every(s => u.credit[s]!.credit <= 0))
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`
const cell = (u: UnitCredit, split: string) => {
  const c = u.credit[split as 'validation']
  return c ? `${pct(c.credit)} [${pct(c.ci[0])}, ${pct(c.ci[1])}]` : '-'
}

/** Each blamed line's credit (rule units; patch units by their lines), from the latest ablation of that blob. */
export interface LineCredit {
  line: number
  unit: string
  kind: 'rule' | 'patch'
  credit: UnitCredit['credit']
  removal: boolean
}

export function creditsOf(n: AblationNote, lines: readonly {line: number; text: string}[]): LineCredit[] {
  const out: LineCredit[] = []
  for (const u of n.units) {
    if (u.kind !== 'rule') continue
    const text = u.text[0]!
    const hit = lines.find(l => l.text === text)
    if (hit) out.push({line: hit.line, unit: u.id, kind: u.kind, credit: u.credit, removal: u.removal})
  }
  return out
}

/** `exp blame --credit`: the blame with a credit column per split. */
export function renderCreditBlame(b: Blame, n: AblationNote | undefined, blameText: string): string {
  if (!n) return `${blameText}\n\nno ablation of this SKILL.md yet: run \`exp ablate ${b.skill}\``
  const credits = new Map(creditsOf(n, b.lines).map(c => [c.line, c]))
  const rows = blameText.split('\n')
  const head = rows.shift()!
  const cols = rows.map((_, i) => {
    const c = credits.get(b.lines[i]!.line)
    return c ? n.splits.map(s => `${s.slice(0, 3)} ${cell({credit: c.credit} as UnitCredit, s)}`).join('  ') + (c.removal ? '  REMOVABLE' : '') : ''
  })
  const width = Math.max(0, ...cols.map(c => c.length))
  const body = rows.map((r, i) => `${cols[i]!.padEnd(width)}  ${r}`)
  return [`${head}  credit: ${n.agent}, repeat ${n.repeat}, seed ${n.seed} (${n.note})`, ...body].join('\n')
}

/** `exp ablate` as text. */
export function renderAblation(a: Ablation): string {
  const out = [`${a.skill}@${a.version} (${a.commit.slice(0, 12)}), agent ${a.agent}, repeat ${a.repeat}: credit = success with the unit − success without it (paired, 95% interval), in points`]
  for (const s of a.splits) {
    const b = a.baseline[s]!
    out.push(`  ${s}: the skill passes ${b.passed}/${b.total} (${(b.rate * 100).toFixed(1)}%)`)
  }
  out.push('')
  out.push(['UNIT', 'LINES', ...a.splits.map(s => s.toUpperCase()), 'TEXT'].join('\t'))
  for (const u of a.units) out.push([u.id + (u.removal && u.kind === 'rule' ? ' *' : ''), u.lines.join(','), ...a.splits.map(s => cell(u, s)), u.kind === 'rule' ? u.text[0]!.trim() : `${u.text.length} line(s) of ${u.proposal}`].join('\t'))
  out.push('')
  out.push(a.candidates.length ? `removal candidates (*: removing it did not lower success on any split): ${a.candidates.join(', ')}` : 'no removal candidate: every rule earns its place')
  if (a.proposal) out.push(`offered: ${a.proposal.id} on ${a.proposal.branch} removes "${a.proposal.rule}"; judge it with \`exp eval ${a.proposal.id}\` and \`exp promote ${a.proposal.id}\``)
  else if (a.no_proposal) out.push(`no proposal: ${a.no_proposal}`)
  out.push(`credits recorded as ${a.note}; ${a.recorded} new episode(s)`)
  return out.join('\n')
}

/** The report's section: the latest ablation of the current SKILL.md of each skill, as Markdown. */
export function creditMarkdown(notes: readonly AblationNote[]): string {
  if (!notes.length) return ''
  const out = ['## Rule credit (`exp ablate`)', '']
  for (const n of notes) {
    out.push(`### ${mdText(`${n.skill}@${n.version} with ${n.agent} (repeat ${n.repeat})`)}`, '')
    out.push(`| unit | lines | ${n.splits.map(mdText).join(' | ')} | removal | text |`, `| --- | --- | ${n.splits.map(() => '---').join(' | ')} | --- | --- |`)
    for (const u of n.units) out.push(`| ${mdText(u.id)} | ${u.lines.join(', ')} | ${n.splits.map(s => mdText(cell(u, s))).join(' | ')} | ${u.removal && u.kind === 'rule' ? 'candidate' : ''} | ${mdText(u.kind === 'rule' ? u.text[0]!.trim() : `${u.text.length} line(s) of ${u.proposal}`)} |`)
    out.push('')
  }
  return out.join('\n')
}

/** The report's section as HTML (`escape`: the page's own escaping). */
export function creditHtml(notes: readonly AblationNote[], escape: (s: string) => string): string {
  const parts = notes.map(n => {
    const rows = n.units.map(u => `<tr><td class="l">${escape(u.id)}</td><td>${u.lines.join(', ')}</td>${n.splits.map(s => `<td>${escape(cell(u, s))}</td>`).join('')}<td>${u.removal && u.kind === 'rule' ? 'candidate' : ''}</td><td class="l"><code>${escape(u.kind === 'rule' ? u.text[0]!.trim() : `${u.text.length} line(s) of ${u.proposal}`)}</code></td></tr>`)
    return `<h3>${escape(`${n.skill}@${n.version} with ${n.agent} (repeat ${n.repeat})`)}</h3><table><thead><tr><th class="l">unit</th><th>lines</th>${n.splits.map(s => `<th>${escape(s)}</th>`).join('')}<th>removal</th><th class="l">text</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  })
  return `<section><h2>Rule credit (exp ablate)</h2>${parts.join('')}</section>`
}
