import {isArtifactPath, isKind, recordPath} from '../../records/index.js'
import {trailersOf} from './message.js'
import type {LaneCommit} from './log.js'
import type {Finding} from './record-bytes.js'

export interface Located {
  path: string
  blob: string
  kind: string
  id: string
  lamport?: number
  /** artifact files the commit adds beside its record (the record must name each) */
  artifacts?: string[]
}

/** what a commit whose message holds \x01 is named, however its lane is read */
export const X01 = 'commit message contains a \\x01 byte (a control byte exp never writes): not read'

/** The one file a record commit must add, read from its trailers and checked against its diff. */
export function recordChange(c: LaneCommit): Located | {problem: Finding; path?: string} {
  const bad = (code: Finding['code'], message: string, path?: string) => ({problem: {code, message}, path})
  // git cuts a message at a NUL (native reads never see what follows); in-process reads do
  if (c.message.includes('\0')) return bad('commit-message', 'commit message contains a NUL byte (git cuts the message there)')
  // and a \x01 is a control byte exp never writes (git log's entries were once split on it): a
  // commit holding one is named by every reader alike (tree-list.ts leaves it to this one)
  if (c.message.includes('\x01')) return bad('commit-message', X01)
  // git log re-codes a message from the encoding its commit names, cat-file gives the bytes:
  // read both ways, one record could be two (a view that depended on the cache)
  if (c.encoding !== undefined) return bad('commit-message', `commit names an encoding for its message (${JSON.stringify(c.encoding.slice(0, 40))}; exp never writes one, git log would re-code it): not read`)
  const t = trailersOf(c)
  // (what git log could not read has no message to take a trailer from: named for what it is)
  if (!t.record && c.problem) return bad(c.problem.code, c.problem.message)
  if (!t.record) return bad('commit-not-record', `commit has no Exp-Record trailer: not a record commit${rewritten(c)}`, c.changes.find(x => x.status !== 'A')?.path)
  const {kind, id} = t.record
  if (!isKind(kind)) return bad('commit-not-record', `Exp-Record names unknown kind ${JSON.stringify(kind)}`)
  if (!/^[a-z]{2}-[0-9a-f]{24}$/.test(id)) return bad('commit-not-record', `Exp-Record names malformed id ${JSON.stringify(id)}`)
  const path = recordPath(kind, id)
  if (c.problem) return bad(c.problem.code, c.problem.message, path)
  if (c.parents.length > 1) return bad('commit-merge', 'record commit is a merge; lanes are linear', path)
  // beside its record file a commit may add the artifacts the record names (content-addressed paths)
  const added = c.changes.filter(x => isArtifactPath(x.path))
  const changes = added.length ? c.changes.filter(x => !isArtifactPath(x.path)) : c.changes
  const touched = added.find(x => x.status !== 'A')
  if (touched) return bad('commit-changes', `record commit ${touched.status === 'M' ? 'modifies' : 'deletes'} ${touched.path}: artifacts are append-only`, touched.path)
  if (changes.length !== 1) return bad('commit-changes', `record commit changes ${changes.length} files (expected exactly one added record)${rewritten(c)}`, c.changes.find(x => x.status !== 'A')?.path ?? path)
  const ch = changes[0]!
  if (ch.status !== 'A') return bad('commit-changes', `record commit ${ch.status === 'M' ? 'modifies' : 'deletes'} ${ch.path}: records are append-only`, ch.path)
  if (ch.path !== path) return bad('record-path', `record file is at ${ch.path}, expected ${path} for ${kind}/${id}`, ch.path)
  // a record or artifact is a file: a submodule's entry names a commit (of another repository,
  // or one of this lane's, read as if it were the file), a symbolic link's a path
  const odd = [ch, ...added].find(x => x.mode !== undefined && x.mode !== '100644' && x.mode !== '100755')
  if (odd) return bad('record-invalid', `${odd.path} is ${odd.mode === '160000' ? `a submodule (a gitlink to commit ${odd.blob})` : odd.mode === '120000' ? 'a symbolic link' : `not a regular file (mode ${odd.mode})`}, not a record file: not read`, odd.path)
  return {path, blob: ch.blob, kind, id, lamport: t.lamport, ...(added.length ? {artifacts: added.map(x => x.path)} : {})}
}

/** Artifact files a commit added that its record does not name (a record commit adds only its own). */
export function unnamedArtifacts(loc: Located, record: {artifacts?: readonly {path: string}[]}): string[] {
  return (loc.artifacts ?? []).filter(p => !record.artifacts?.some(a => a.path === p))
}

/**
 * What a commit changes of files already on the lane, as the end of its problem's message: a
 * record's bytes are those its own commit added (a keyed record's new bytes can pass every
 * check of the bytes alone), so a later commit that rewrites them is named for what it does.
 */
function rewritten(c: LaneCommit): string {
  const touched = c.changes.filter(x => x.status !== 'A')
  if (!touched.length) return ''
  const shown = touched.slice(0, 3).map(x => `${x.status === 'M' ? 'modifies' : 'deletes'} ${x.path}`)
  return `; it ${shown.join(', ')}${touched.length > 3 ? ` and ${touched.length - 3} more` : ''} — records are append-only: each keeps the bytes its own commit added`
}
