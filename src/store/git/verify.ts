import {isKind, recordPath} from '../../records/index.js'
import {trailersOf} from './message.js'
import type {LaneCommit} from './log.js'
import type {Finding} from './record-bytes.js'

export interface Located {
  path: string
  blob: string
  kind: string
  id: string
  lamport?: number
}

/** The one file a record commit must add, read from its trailers and checked against its diff. */
export function recordChange(c: LaneCommit): Located | {problem: Finding; path?: string} {
  const bad = (code: Finding['code'], message: string, path?: string) => ({problem: {code, message}, path})
  // git cuts a message at a NUL (native reads never see what follows); in-process reads do
  if (c.message.includes('\0')) return bad('commit-message', 'commit message contains a NUL byte (git cuts the message there)')
  const t = trailersOf(c)
  if (!t.record) return bad('commit-not-record', 'commit has no Exp-Record trailer: not a record commit')
  const {kind, id} = t.record
  if (!isKind(kind)) return bad('commit-not-record', `Exp-Record names unknown kind ${JSON.stringify(kind)}`)
  if (!/^[a-z]{2}-[0-9a-f]{24}$/.test(id)) return bad('commit-not-record', `Exp-Record names malformed id ${JSON.stringify(id)}`)
  const path = recordPath(kind, id)
  if (c.problem) return bad(c.problem.code, c.problem.message, path)
  if (c.parents.length > 1) return bad('commit-merge', 'record commit is a merge; lanes are linear', path)
  if (c.changes.length !== 1) return bad('commit-changes', `record commit changes ${c.changes.length} files (expected exactly one added record)`, path)
  const ch = c.changes[0]!
  if (ch.status !== 'A') return bad('commit-changes', `record commit ${ch.status === 'M' ? 'modifies' : 'deletes'} ${ch.path}: records are append-only`, ch.path)
  if (ch.path !== path) return bad('record-path', `record file is at ${ch.path}, expected ${path} for ${kind}/${id}`, ch.path)
  return {path, blob: ch.blob, kind, id, lamport: t.lamport}
}
