import fs from 'node:fs'
import path from 'node:path'
import {readRegularSync, replaceFileSync} from '../../regular-file.js'

/**
 * The lane tips this clone has seen (.git/exp/tips.json), kept apart from the projection
 * cache so that deleting the cache does not forget them. Lanes only grow: a lane whose tip
 * no longer contains the tip seen before was rewound or rewritten, and the records in
 * between dropped out of every view. `exp ledger` warns, `exp fsck` reports it, and
 * `exp sync` brings the lane back from a remote that still has it.
 */
export interface SeenTip {
  tip: string
  /** records the lane held at that tip */
  records: number
}

export type SeenTips = Record<string, SeenTip>

const FILE = 'tips.json'
/** the most of it read (~100 bytes a lane): a larger one is no tips file exp wrote, and is read as none */
const TIPS_MAX = 64 * 1024 * 1024

/** What `exp ledger` warns and `exp fsck` reports when a lane no longer contains the tip seen before. */
export function rewoundMessage(ref: string, seen: SeenTip, tip: string, records: number): string {
  return `${ref} moved from ${seen.tip.slice(0, 12)} (${count(seen.records)}) to ${tip.slice(0, 12)} (${count(records)}), which does not contain it: records this clone had are no longer on the lane`
}

/** ... and when a lane seen before is gone. */
export function deletedMessage(ref: string, seen: SeenTip): string {
  return `${ref} was deleted (it held ${count(seen.records)} at ${seen.tip.slice(0, 12)})`
}

const count = (k: number) => `${k} record${k === 1 ? '' : 's'}`

export function loadSeenTips(commonDir: string): SeenTips {
  try {
    const s = JSON.parse(readRegularSync(path.join(commonDir, 'exp', FILE), TIPS_MAX)) as {format?: number; lanes?: SeenTips}
    if (s.format === 1 && s.lanes && typeof s.lanes === 'object') {
      const out: SeenTips = {}
      for (const [ref, v] of Object.entries(s.lanes)) if (v && /^[0-9a-f]{40}$/.test(v.tip) && Number.isSafeInteger(v.records)) out[ref] = v
      return out
    }
  } catch {
    // none yet, or unreadable: nothing seen
  }
  return {}
}

/** Write the seen tips (temp file and rename: a reader never sees half a file). */
export function saveSeenTips(commonDir: string, lanes: SeenTips): void {
  const dir = path.join(commonDir, 'exp')
  fs.mkdirSync(dir, {recursive: true})
  replaceFileSync(path.join(dir, FILE), `${JSON.stringify({format: 1, lanes})}\n`)
}
