import type {Ledger, RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import type {HistoryTrust} from '../projections/mainline.js'
import {contractProvenance, type ContractProvenance} from '../projections/contract-provenance.js'
import {contractBlame, type ContractBlame} from '../projections/contract-blame.js'
import {NotFoundError} from '../errors/index.js'
import {provenance, type Provenance} from '../projections/provenance.js'
import {blame, type Blame} from '../projections/blame.js'
import {buildReport, type Report} from './model.js'
import {readBlameInput, readMainline, skillFile} from './sources.js'
import {skillsAt, unknownSkill} from '../loop/files.js'
import {latestAblation, type AblationNote} from './credit.js'
import type {SkippedNote} from './notes.js'

/**
 * Reports and the read-only history views: each reads the ledger and main's history once,
 * then hands them to a pure projection or model; the renderers are pure too.
 */
export {renderProvenanceText} from './provenance-text.js'
export {renderContractProvenance} from './contract-text.js'
export {renderMermaid} from './mermaid.js'
export {renderBlameText} from './blame-text.js'
export {renderMarkdown} from './markdown.js'
export {renderHtml} from './html.js'
export {renderChart} from './chart.js'
export {REPORT_FILES, writeReport, type WrittenReport} from './write.js'
export type {Report, SkillReport, ChartPoint, RejectedProposal, ReportIteration} from './model.js'

/** The trust answers the history views use: an Authority over the same ledger (docs/trust.md). */
export interface ViewTrust extends HistoryTrust {
  readonly ledger: Ledger
}

export async function readProvenance(store: RecordStore, ws: Workspace, o: {mainRef: string; skill: string; version?: number; trust?: ViewTrust}): Promise<Provenance> {
  const mainline = await readMainline(ws, o.mainRef, [o.skill])
  const tip = mainline[mainline.length - 1]
  if (!tip?.skills[o.skill]) throw await unknownSkill(ws, tip?.oid, o.mainRef, o.skill)
  return onBranch(provenance(o.trust?.ledger ?? (await store.ledger()), mainline, o), o.mainRef)
}

/** The views name the main branch as this repository calls it (master, trunk), not "main". */
function onBranch<T extends {main: {commit: string; version: number; branch?: string}}>(view: T, mainRef: string): T {
  return {...view, main: {...view.main, branch: mainRef.replace(/^refs\/heads\//, '')}}
}

export async function readBlame(store: RecordStore, ws: Workspace, o: {mainRef: string; skill: string; trust?: ViewTrust}): Promise<Blame> {
  const input = await readBlameInput(ws, o.mainRef, o.skill)
  return onBranch(blame(o.trust?.ledger ?? (await store.ledger()), input, o.trust), o.mainRef)
}

/** The latest ablation of each skill's SKILL.md at the tip of a first-parent line, one of that line's first (reports/credit.ts latestAblation). */
async function latestCredits(ws: Workspace, ledger: Ledger, line: readonly string[], skills: readonly string[], o: {counts?: (id: string) => boolean; skipped?: (s: SkippedNote) => void}): Promise<AblationNote[]> {
  const commit = line[line.length - 1]!
  const out: AblationNote[] = []
  for (const s of skills) {
    const blob = (await ws.pathId(commit, skillFile(s)))?.oid
    const text = blob ? (await ws.readFile(commit, skillFile(s)))?.toString('utf8') : undefined
    const n = blob && text !== undefined ? latestAblation(ledger, {blob, text, ...o}, line) : undefined
    if (n) out.push(n)
  }
  return out
}

/**
 * The report model of the given skills (default: every skill on main). `skipped` is told of
 * each note it read as data and left out as malformed (reports/notes.ts): maybe more than once
 * for one note.
 */
export async function readReport(store: RecordStore, ws: Workspace, o: {mainRef: string; skills?: readonly string[]; trust?: ViewTrust; skipped?: (s: SkippedNote) => void}): Promise<Report> {
  const mainline = await readMainline(ws, o.mainRef, o.skills)
  const tip = mainline[mainline.length - 1]
  const skills = o.skills ?? (tip ? await skillsAt(ws, tip.oid) : [])
  const ledger = o.trust?.ledger ?? (await store.ledger())
  const report = buildReport(ledger, mainline, {mainRef: o.mainRef, skills, ...(o.trust ? {trust: o.trust} : {}), ...(o.skipped ? {skipped: o.skipped} : {})})
  const missing = o.skills?.find(s => !report.skills.some(r => r.skill === s))
  if (missing !== undefined) throw await unknownSkill(ws, tip?.oid, o.mainRef, missing)
  const credit = tip ? await latestCredits(ws, ledger, mainline.map(c => c.oid), skills, {...(o.trust ? {counts: (id: string) => o.trust!.counts(id)} : {}), ...(o.skipped ? {skipped: o.skipped} : {})}) : []
  return credit.length ? {...report, credit} : report
}

/** The provenance of a research contract's editable files on main (docs/contracts.md). */
export async function readContractProvenance(store: RecordStore, ws: Workspace, o: {mainRef: string; contract: string; trust?: ViewTrust}): Promise<ContractProvenance> {
  const mainline = await readMainline(ws, o.mainRef, [])
  return onBranch(contractProvenance(o.trust?.ledger ?? (await store.ledger()), mainline, o.contract, o.trust), o.mainRef)
}

/** Blame of one editable file of a research contract on main (docs/contracts.md). */
export async function readContractBlame(store: RecordStore, ws: Workspace, o: {mainRef: string; contract: string; path: string; trust?: ViewTrust}): Promise<ContractBlame> {
  const tip = await ws.readRef(o.mainRef)
  if (!tip || !(await ws.hasFile(tip, o.path))) throw new NotFoundError('file on main', `${o.mainRef.replace(/^refs\/heads\//, '')}:${o.path}`, 'name an editable file of the contract, e.g. params.json')
  const mainline = await readMainline(ws, o.mainRef, [])
  const lines = await ws.blame(tip, o.path)
  return {...contractBlame(o.trust?.ledger ?? (await store.ledger()), {contract: o.contract, path: o.path, lines, mainline}, o.trust), branch: o.mainRef.replace(/^refs\/heads\//, '')}
}

export function renderContractBlame(b: ContractBlame): string {
  const who = b.lines.map(l => (l.origin === 'attempt' ? `${l.unverified ? 'UNVERIFIED ' : ''}#${l.ordinal ?? '?'} ${l.attempt}${l.merge ? ` merge ${l.merge.slice(0, 8)}` : ''}` : `${l.origin} ${l.commit.slice(0, 8)}`))
  const width = Math.max(0, ...who.map(w => w.length))
  return [`${b.path} on ${b.branch ?? 'main'} (contract ${b.contract})`, ...b.lines.map((l, i) => `${String(l.line).padStart(3)}  ${who[i]!.padEnd(width)} | ${l.text}`)].join('\n')
}
