import {encodeFacts} from '../../records/index.js'
import {checkRecordBytes, type Finding} from './record-bytes.js'

/** What the checks found: the entry's fields when the record passed, its problems otherwise. */
export type Checked = {id: string; digest: string; lamport: number; cites: string[]; facts: string | undefined; pre: number; created: string; artifacts?: string[]; problems?: undefined} | {problems: Finding[]}

/** What the checks of one record file give (record-bytes.ts). */
export function checkOne(data: Buffer, expect: {lane: string; kind: string; id: string; lamport?: number}): Checked {
  const r = checkRecordBytes(data, expect)
  if (!r.ok) return {problems: r.problems as Finding[]}
  const rec = r.ok.record
  return {id: rec.id, digest: rec.digest, lamport: rec.lamport, cites: rec.cites, facts: encodeFacts(rec), pre: r.ok.pre, created: rec.created_at, ...(rec.artifacts?.length ? {artifacts: rec.artifacts.map(a => a.path)} : {})}
}
