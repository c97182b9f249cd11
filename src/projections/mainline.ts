import type {Ledger} from '../store/index.js'
import {visible} from './provenance-nodes.js'

/**
 * Main's first-parent line as the projections see it: plain data read from git elsewhere
 * (src/reports/sources.ts), so that versions, provenance and blame stay pure functions.
 */
export interface MainCommit {
  oid: string
  /** the commit's tree (what a promotion merge put on main) */
  tree?: string
  parents: string[]
  subject: string
  trailers: Record<string, string[]>
  /** blob of skills/<name>/SKILL.md at this commit, per skill name (absent: no such file) */
  skills: Record<string, string>
  /** names of the research contracts (.research/contracts/*.yaml) at this commit */
  contracts?: string[]
  /** a merge with promotion trailers: the paths its tree changes from its second parent's (what the merge itself added) */
  beyond_branch?: string[]
}

/** A merge commit on main that promoted a proposal (its trailers Exp-Promotes, Exp-Evidence, Exp-Policy: docs/provenance.md). */
export interface Promotion {
  commit: string
  first_parent: string
  /** the proposal's commit (the merge's second parent) */
  proposal_commit?: string
  /** the merge's tree: an attempt's promotion puts exactly the evaluated tree on main */
  tree?: string
  /** the merge's SKILL.md blobs by skill name: a skill's promotion puts exactly the evaluated candidate on main */
  skills?: Record<string, string>
  /** the paths the merge's tree changes from the proposal's commit (a skill's promotion: its PURPOSE.yaml only) */
  beyond_branch?: string[]
  proposal: string
  evaluations: string[]
  policy?: {version: string; digest: string}
}

/**
 * What the history views ask of the trust checks (docs/trust.md; an Authority answers):
 * whether a promotion merge is backed by a standing accept decision, and whether an
 * evaluation or decision counts. Without it every record is taken as it is.
 */
export interface HistoryTrust {
  promotion(p: Promotion): {ok: boolean; reason?: string}
  counts(id: string): boolean
}

/** One version of a skill: 1 where it first appears on main, +1 at each promotion of it. */
export interface VersionPoint {
  skill: string
  version: number
  origin: 'initial' | 'promotion'
  commit: string
  skill_blob?: string
  promotion?: Promotion
  /** a merge with promotion trailers that no standing accept decision names: why (the version is kept, marked) */
  unverified?: string
}

export interface SkillTimeline {
  skill: string
  versions: VersionPoint[]
  /** the version in force at each first-parent commit of main */
  versionAt: ReadonlyMap<string, number>
  /** the promotion that merged each proposal (by proposal id) */
  promotions: ReadonlyMap<string, VersionPoint>
}

export function promotionOf(c: MainCommit): Promotion | undefined {
  const id = c.trailers['Exp-Promotes']?.[0]
  if (!id || c.parents.length < 2) return undefined
  const [version, digest] = (c.trailers['Exp-Policy']?.[0] ?? '').split(/\s+/)
  return {
    commit: c.oid,
    first_parent: c.parents[0]!,
    proposal_commit: c.parents[1],
    ...(c.tree ? {tree: c.tree} : {}),
    skills: c.skills,
    ...(c.beyond_branch ? {beyond_branch: c.beyond_branch} : {}),
    proposal: id,
    evaluations: (c.trailers['Exp-Evidence'] ?? []).flatMap(v => v.split(/\s+/)).filter(Boolean),
    ...(version && digest ? {policy: {version, digest}} : {}),
  }
}

/** Which skill a promotion changed: the proposal record says; without it, the merge subject or the changed blob. */
function promotes(c: MainCommit, p: Promotion, ledger: Ledger, skill: string, before: string | undefined): boolean {
  const e = visible(ledger, p.proposal)
  if (e?.kind === 'proposal') return ledger.load<'proposal'>(e).body.skill === skill
  const m = /^exp: promote (\S+) v\d+/.exec(c.subject)
  if (m) return m[1] === skill
  return c.skills[skill] !== before
}

/** The versions of `skill` along main (commits oldest first), pure. */
export function skillTimeline(commits: readonly MainCommit[], ledger: Ledger, skill: string, trust?: HistoryTrust): SkillTimeline {
  const versions: VersionPoint[] = []
  const versionAt = new Map<string, number>()
  const promotions = new Map<string, VersionPoint>()
  let blob: string | undefined
  for (const c of commits) {
    const p = promotionOf(c)
    if (p && versions.length && promotes(c, p, ledger, skill, blob)) {
      const v: VersionPoint = {skill, version: versions.length + 1, origin: 'promotion', commit: c.oid, skill_blob: c.skills[skill], promotion: p}
      const s = trust?.promotion(p)
      if (s && !s.ok) v.unverified = s.reason ?? 'no standing accept decision names this merge'
      versions.push(v)
      promotions.set(p.proposal, v)
    } else if (!versions.length && c.skills[skill]) versions.push({skill, version: 1, origin: 'initial', commit: c.oid, skill_blob: c.skills[skill]})
    blob = c.skills[skill]
    if (versions.length) versionAt.set(c.oid, versions.length)
  }
  return {skill, versions, versionAt, promotions}
}
