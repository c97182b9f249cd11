import {parseTrailers} from './message.js'

/** A lane's tip here and on the remote (undefined: the remote does not have it). */
export interface LaneTips {
  ref: string
  remote: string | undefined
  local: string
}

/** The messages of the commits of `local` the remote lacks (those after `remote`). */
export type NewMessages = (remote: string | undefined, local: string) => Promise<string[]>

export interface Held {
  ref: string
  reason: string
}

/**
 * The lanes a push must hold back: those whose new records cite a record that will not be on
 * the remote — a record of a lane that diverged (its push is refused: two clones wrote one lane
 * name), or of a lane held back for that reason in turn.
 *
 * Pushed alone, such a lane leaves records on the remote that cite what it does not have:
 * every other clone then reads dangling cites, and evaluations whose verifications are missing
 * as forged ones. Held back, it goes with the next sync after the diverged lane is sorted out;
 * nothing here is lost. The records a commit adds and cites are read from its trailers
 * (Exp-Record, Exp-Cites), as the ledger's commit-by-commit read does.
 */
export async function heldLanes(stuck: readonly LaneTips[], pushing: readonly LaneTips[], newMessages: NewMessages): Promise<Held[]> {
  if (!stuck.length || !pushing.length) return []
  // record id -> the lane it is on, for every record that will not reach the remote
  const missing = new Map<string, string>()
  for (const s of stuck) for (const id of (await newRecords(s, newMessages)).map(r => r.id)) missing.set(id, s.ref)
  const lanes = await Promise.all(pushing.map(async p => ({ref: p.ref, records: await newRecords(p, newMessages)})))
  const held: Held[] = []
  const isHeld = new Set<string>()
  for (let changed = true; changed; ) {
    changed = false
    for (const l of lanes) {
      if (isHeld.has(l.ref)) continue
      const r = l.records.find(x => x.cites.some(c => missing.has(c)))
      if (!r) continue
      const cited = r.cites.find(c => missing.has(c))!
      const on = missing.get(cited)!
      held.push({ref: l.ref, reason: `not pushed: its record ${r.id} cites ${cited} of ${on}, which is not on the remote (${on} was not pushed): pushed alone it would cite what the remote does not have. It goes with the sync after ${on} does`})
      isHeld.add(l.ref)
      for (const x of l.records) missing.set(x.id, l.ref)
      changed = true
    }
  }
  return held
}

async function newRecords(l: LaneTips, newMessages: NewMessages): Promise<{id: string; cites: string[]}[]> {
  const out: {id: string; cites: string[]}[] = []
  for (const m of await newMessages(l.remote, l.local)) {
    const t = parseTrailers(m)
    if (t.record) out.push({id: t.record.id, cites: t.cites})
  }
  return out
}
