import type {GitRecordStore} from '../store/index.js'
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

export async function readProvenance(store: GitRecordStore, o: {mainRef: string; skill: string; version?: number}): Promise<Provenance> {
  const mainline = await readMainline(store, o.mainRef, [o.skill])
  return provenance(await store.ledger(), mainline, o)
}

export async function readBlame(store: GitRecordStore, o: {mainRef: string; skill: string}): Promise<Blame> {
  const input = await readBlameInput(store, o.mainRef, o.skill)
  return blame(await store.ledger(), input)
}

/** The report model of the given skills (default: every skill on main). */
export async function readReport(store: GitRecordStore, o: {mainRef: string; skills?: readonly string[]}): Promise<Report> {
  const mainline = await readMainline(store, o.mainRef, o.skills)
  const tip = mainline[mainline.length - 1]
  const skills = o.skills ?? (tip ? await skillNamesAt(store, tip.oid) : [])
  return buildReport(await store.ledger(), mainline, {mainRef: o.mainRef, skills})
}
