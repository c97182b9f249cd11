import type {Ledger, LedgerEntry} from '../store/index.js'
import type {BlamedLine} from '../workspace/history.js'
import {skillTimeline, type HistoryTrust, type MainCommit} from './mainline.js'
import {shownDecision, visible} from './provenance-nodes.js'

export interface BlameLine {
  line: number
  text: string
  /** the commit `git blame` names */
  commit: string
  /**
   * initial: the skill as first committed; promotion: added by a proposal commit that a
   * promotion merged; edit: changed directly on main later; unknown: neither (e.g. a merge of
   * a branch that is not a proposal)
   */
  origin: 'initial' | 'promotion' | 'edit' | 'unknown'
  /** the skill version that brought the line */
  version?: number
  merge?: string
  proposal?: string
  decision?: string
  knowledge: string[]
  /** how the knowledge was found: the edit whose lines match this one, or (no match) the whole proposal */
  match?: 'edit' | 'proposal'
  /** the merge that brought it is not backed by a standing accept decision: why */
  unverified?: string
}

export interface Blame {
  skill: string
  path: string
  /** the main branch's tip, its version, and the branch's name (main, master or any) */
  main: {commit: string; version: number; branch?: string}
  lines: BlameLine[]
}

export interface BlameInput {
  skill: string
  path: string
  lines: readonly BlamedLine[]
  mainline: readonly MainCommit[]
}

/**
 * `exp blame SKILL` (pure): git's blame of main's SKILL.md, each line mapped through the
 * commit of main's first-parent line that brought it (`via`) to the promotion that merged
 * it, the proposal and the knowledge of the edit that wrote it. A renumbered list line
 * matches no edit: it gets the proposal's knowledge. A line is a proposal's only when its
 * promotion merge brought it: an Exp-Proposal trailer on the commit that wrote it is
 * anyone's to write (a commit pushed straight to main can carry one) and names nothing here.
 */
export function blame(ledger: Ledger, input: BlameInput, trust?: HistoryTrust): Blame {
  const timeline = skillTimeline(input.mainline, ledger, input.skill, trust)
  const tip = input.mainline[input.mainline.length - 1]
  const merges = new Map([...timeline.promotions.values()].map(v => [v.commit, v.promotion!.proposal]))
  const accepted = new Map<string, string | undefined>()
  // (a decision of another proposal that merely cites this one decides nothing here)
  const acceptOf = (proposal: string, d: LedgerEntry) => {
    const body = ledger.load<'decision'>(d).body
    return body.proposal === proposal && body.verdict === 'accept' && (!trust || trust.counts(d.id))
  }
  const acceptedDecision = (proposal: string) => {
    if (!accepted.has(proposal)) accepted.set(proposal, shownDecision(ledger, proposal, ledger.select({kinds: ['decision'], cites: proposal, includePrivate: false}).filter(d => acceptOf(proposal, d)).map(d => ({id: d.id, body: {verdict: 'accept'}})))?.id)
    return accepted.get(proposal)
  }
  const merged = new Set(input.mainline.filter(c => c.parents.length > 1).map(c => c.oid))
  const lines = input.lines.map((l): BlameLine => {
    const base = {line: l.line, text: l.text, commit: l.commit, knowledge: [] as string[]}
    // (a merge that changed the file itself, not exp's way but possible by hand, answers for its proposal too)
    const proposal = merges.get(l.via)
    if (!proposal) {
      const version = timeline.versionAt.get(l.via)
      // brought by a merge that promoted no proposal of this skill: from a branch nothing judged
      if (version === undefined || (merged.has(l.via) && l.via !== l.commit)) return {...base, origin: 'unknown'}
      return {...base, origin: version === 1 ? 'initial' : 'edit', version}
    }
    const promoted = timeline.promotions.get(proposal)
    const out: BlameLine = {...base, origin: 'promotion', proposal, ...(promoted ? {version: promoted.version, merge: promoted.commit} : {}), ...(promoted?.unverified ? {unverified: promoted.unverified} : {})}
    const e = visible(ledger, proposal)
    if (e?.kind !== 'proposal') return out
    const p = ledger.load<'proposal'>(e).body
    const decision = acceptedDecision(proposal)
    if (decision) out.decision = decision
    if (!promoted && p.head.version) out.version = Number(p.head.version)
    const want = lineKey(l.text)
    const edit = want ? p.patch.edits.find(x => Array.isArray(x.lines) && x.lines.some(y => lineKey(String(y)) === want)) : undefined
    out.knowledge = edit && Array.isArray(edit.knowledge) ? edit.knowledge.map(String) : [...p.knowledge]
    out.match = edit ? 'edit' : 'proposal'
    return out
  })
  return {skill: input.skill, path: input.path, main: {commit: tip?.oid ?? '', version: tip ? (timeline.versionAt.get(tip.oid) ?? 0) : 0}, lines}
}

/**
 * A line as the patch matcher compares it: list marker dropped, case and spacing folded
 * (the rule of skills/text.ts `fold`, restated here because projections sit below skills/).
 */
export function lineKey(text: string): string {
  return text.trim().replace(/^(?:\d{1,9}[.)]|[-*+])(?:[ \t]+|$)/, '').normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()
}
