import {readRef} from '../store/git/refs.js'
import {readCommit} from '../store/git/commits.js'
import {lookupPath, readTree} from '../store/git/tree.js'
import {blameFile, firstParentLine, trailersOf} from '../store/git/history.js'
import type {GitRecordStore} from '../store/index.js'
import {NotFoundError} from '../errors/index.js'
import type {MainCommit} from '../projections/mainline.js'
import type {BlameInput} from '../projections/blame.js'

/**
 * The git reads behind provenance, blame and reports, done once so that everything after
 * them is a pure function of (ledger, main's history).
 */

export const skillFile = (skill: string) => `skills/${skill}/SKILL.md`

async function tipOf(store: GitRecordStore, mainRef: string): Promise<string> {
  const tip = await readRef(store.commonDir, mainRef)
  if (!tip) throw new NotFoundError('branch', mainRef, 'name the branch with --main, or commit the skills on main first (`exp init --example onboarding` does)')
  return tip
}

/** Names of the skills (folders with a SKILL.md) under skills/ at a commit. */
export async function skillNamesAt(store: GitRecordStore, commit: string): Promise<string[]> {
  const dir = await lookupPath(store.reader, (await readCommit(store, commit)).tree, 'skills')
  if (!dir || dir.mode !== '40000') return []
  const names: string[] = []
  for (const e of await readTree(store.reader, dir.oid)) {
    if (e.mode === '40000' && (await readTree(store.reader, e.oid)).some(x => x.name === 'SKILL.md')) names.push(e.name)
  }
  return names.sort()
}

/** Main's first-parent line, oldest first, with each skill's SKILL.md blob at every commit. */
export async function readMainline(store: GitRecordStore, mainRef: string, skills?: readonly string[]): Promise<MainCommit[]> {
  const tip = await tipOf(store, mainRef)
  const names = skills ?? (await skillNamesAt(store, tip))
  const out: MainCommit[] = []
  let prev: {dir?: string; skills: Record<string, string>; cdir?: string; contracts: string[]} = {skills: {}, contracts: []}
  for (const c of await firstParentLine(store, tip)) {
    // most commits leave skills/ alone: its tree oid unchanged means every blob unchanged
    const dir = (await lookupPath(store.reader, c.tree, 'skills'))?.oid
    let blobs = prev.skills
    if (dir !== prev.dir) {
      blobs = {}
      for (const n of names) {
        const e = dir ? await lookupPath(store.reader, dir, `${n}/SKILL.md`) : undefined
        if (e && e.mode !== '40000') blobs[n] = e.oid
      }
    }
    const cdir = (await lookupPath(store.reader, c.tree, '.research/contracts'))?.oid
    let contracts = prev.contracts
    if (cdir !== prev.cdir) contracts = cdir ? (await readTree(store.reader, cdir)).filter(e => /\.ya?ml$/.test(e.name)).map(e => e.name.replace(/\.ya?ml$/, '')).sort() : []
    prev = {dir, skills: blobs, cdir, contracts}
    out.push({oid: c.oid, parents: c.parents, subject: c.message.split('\n')[0] ?? '', trailers: trailersOf(c.message), skills: blobs, ...(contracts.length ? {contracts} : {})})
  }
  return out
}

/** git blame of main's SKILL.md and the messages of the commits it names. */
export async function readBlameInput(store: GitRecordStore, mainRef: string, skill: string): Promise<BlameInput> {
  const tip = await tipOf(store, mainRef)
  const path = skillFile(skill)
  const mainline = await readMainline(store, mainRef, [skill])
  if (!mainline[mainline.length - 1]?.skills[skill]) throw new NotFoundError('skill on main', `${mainRef.replace(/^refs\/heads\//, '')}:${path}`)
  const lines = await blameFile(store, tip, path)
  const messages = new Map<string, string>()
  for (const oid of new Set(lines.map(l => l.commit))) messages.set(oid, (await readCommit(store, oid)).message)
  return {skill, path, lines, messages, mainline}
}
