import {NotFoundError} from '../errors/index.js'
import {skillsAt, unknownSkill} from '../loop/files.js'
import type {MainCommit} from '../projections/mainline.js'
import type {BlameInput} from '../projections/blame.js'
import type {Workspace} from '../workspace/port.js'
import {trailersOf} from '../workspace/history.js'

/**
 * The repository reads behind provenance, blame and reports, done once through the
 * Workspace port so that everything after them is a pure function of (ledger, main's
 * history).
 */

export const skillFile = (skill: string) => `skills/${skill}/SKILL.md`

async function tipOf(ws: Workspace, mainRef: string): Promise<string> {
  const tip = await ws.readRef(mainRef)
  if (!tip) throw new NotFoundError('branch', mainRef, 'name the branch with --main, or commit the skills on main first (`exp init --example onboarding` does)')
  return tip
}

/** Main's first-parent line, oldest first, with each skill's SKILL.md blob and the contracts at every commit. */
export async function readMainline(ws: Workspace, mainRef: string, skills?: readonly string[]): Promise<MainCommit[]> {
  const tip = await tipOf(ws, mainRef)
  const names = skills ?? (await skillsAt(ws, tip))
  const out: MainCommit[] = []
  let prev: {dir?: string; skills: Record<string, string>; cdir?: string; contracts: string[]} = {skills: {}, contracts: []}
  for (const c of await ws.firstParents(tip)) {
    // most commits leave skills/ alone: its tree id unchanged means every blob unchanged
    const dir = (await ws.pathId(c.tree, 'skills'))?.oid
    let blobs = prev.skills
    if (dir !== prev.dir) {
      blobs = {}
      for (const n of names) {
        const e = dir ? await ws.pathId(dir, `${n}/SKILL.md`) : undefined
        if (e?.kind === 'blob') blobs[n] = e.oid
      }
    }
    const cdir = (await ws.pathId(c.tree, '.research/contracts'))?.oid
    let contracts = prev.contracts
    if (cdir !== prev.cdir) contracts = cdir ? (await ws.entries(cdir)).filter(e => /\.ya?ml$/.test(e.name)).map(e => e.name.replace(/\.ya?ml$/, '')).sort() : []
    prev = {dir, skills: blobs, cdir, contracts}
    const trailers = trailersOf(c.message)
    // a promotion merge: what it changes beyond the branch it merged (exp's own: the PURPOSE.yaml it marks accepted)
    const beyond = trailers['Exp-Promotes'] && c.parents.length > 1 ? {beyond_branch: await ws.changedPaths(c.parents[1]!, c.oid)} : {}
    out.push({oid: c.oid, tree: c.tree, parents: c.parents, subject: c.message.split('\n')[0] ?? '', trailers, skills: blobs, ...(contracts.length ? {contracts} : {}), ...beyond})
  }
  return out
}

/** git blame of main's SKILL.md and main's first-parent line. */
export async function readBlameInput(ws: Workspace, mainRef: string, skill: string): Promise<BlameInput> {
  const tip = await tipOf(ws, mainRef)
  const path = skillFile(skill)
  const mainline = await readMainline(ws, mainRef, [skill])
  if (!mainline[mainline.length - 1]?.skills[skill]) throw await unknownSkill(ws, tip, mainRef, skill)
  const lines = await ws.blame(tip, path)
  return {skill, path, lines, mainline}
}
