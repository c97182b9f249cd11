import type {GitRecordStore, Ledger} from '../store/index.js'
import type {HistoryTrust} from '../projections/mainline.js'
import {provenance, type Provenance} from '../projections/provenance.js'
import {blame, type Blame} from '../projections/blame.js'
import {buildReport, type Report} from './model.js'
import {readBlameInput, readMainline, skillNamesAt} from './sources.js'

/**
 * Reports and the read-only history views: each reads the ledger and main's history once,
 * then hands them to a pure projection or model; the renderers are pure too.
 */
export {renderProvenanceText} from './provenance-text.js'
export {renderMermaid} from './mermaid.js'
export {renderBlameText} from './blame-text.js'
export {renderMarkdown} from './markdown.js'
export {renderHtml} from './html.js'
export {renderChart} from './chart.js'
export {writeReport, type WrittenReport} from './write.js'
export type {Report, SkillReport, ChartPoint, RejectedProposal, ReportIteration} from './model.js'

/** The trust answers the history views use: an Authority over the same ledger (docs/trust.md). */
export interface ViewTrust extends HistoryTrust {
  readonly ledger: Ledger
}

export async function readProvenance(store: GitRecordStore, o: {mainRef: string; skill: string; version?: number; trust?: ViewTrust}): Promise<Provenance> {
  const mainline = await readMainline(store, o.mainRef, [o.skill])
  return provenance(o.trust?.ledger ?? (await store.ledger()), mainline, o)
}

export async function readBlame(store: GitRecordStore, o: {mainRef: string; skill: string; trust?: ViewTrust}): Promise<Blame> {
  const input = await readBlameInput(store, o.mainRef, o.skill)
  return blame(o.trust?.ledger ?? (await store.ledger()), input, o.trust)
}

/** The report model of the given skills (default: every skill on main). */
export async function readReport(store: GitRecordStore, o: {mainRef: string; skills?: readonly string[]; trust?: ViewTrust}): Promise<Report> {
  const mainline = await readMainline(store, o.mainRef, o.skills)
  const tip = mainline[mainline.length - 1]
  const skills = o.skills ?? (tip ? await skillNamesAt(store, tip.oid) : [])
  return buildReport(o.trust?.ledger ?? (await store.ledger()), mainline, {mainRef: o.mainRef, skills, ...(o.trust ? {trust: o.trust} : {})})
}
