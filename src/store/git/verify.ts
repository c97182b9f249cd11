import {checkRecord, decodeRecord, isKind, recordPath, type ExpRecord} from '../../records/index.js'
import {parseTrailers} from './message.js'
import type {LaneCommit} from './log.js'

/** The one file a record commit must add, read from its trailers and checked against its diff. */
export function recordChange(c: LaneCommit): {path: string; blob: string; kind: string; id: string; lamport?: number} | {problem: string; path?: string} {
  const t = parseTrailers(c.message)
  if (!t.record) return {problem: 'commit has no Exp-Record trailer: not a record commit'}
  const {kind, id} = t.record
  if (!isKind(kind)) return {problem: `Exp-Record names unknown kind ${JSON.stringify(kind)}`}
  if (!/^[a-z]{2}-[0-9a-f]{24}$/.test(id)) return {problem: `Exp-Record names malformed id ${JSON.stringify(id)}`}
  const path = recordPath(kind, id)
  if (c.parents.length > 1) return {problem: 'record commit is a merge; lanes are linear', path}
  if (c.changes.length !== 1) return {problem: `record commit changes ${c.changes.length} files (expected exactly one added record)`, path}
  const ch = c.changes[0]!
  if (ch.status !== 'A') return {problem: `record commit ${ch.status === 'M' ? 'modifies' : 'deletes'} ${ch.path}: records are append-only`, path: ch.path}
  if (ch.path !== path) return {problem: `record file is at ${ch.path}, expected ${path} for ${kind}/${id}`, path: ch.path}
  return {path, blob: ch.blob, kind, id, lamport: t.lamport}
}

/** Check the decoded record against its schema, its trailers and the lane it is on. */
export function checkStoredRecord(bytes: Buffer, c: LaneCommit, where: {lane: string; path: string; kind: string; id: string; lamport?: number}): {record?: ExpRecord; problems: string[]} {
  let record: ExpRecord
  try {
    record = decodeRecord(bytes, where.path)
  } catch (e) {
    return {problems: [(e as Error).message]}
  }
  const problems = checkRecord(record).map(p => `schema: ${p.path || '(root)'} ${p.message}`)
  if (problems.length) return {problems}
  if (record.id !== where.id) problems.push(`record id ${record.id} does not match its path/trailer ${where.id}`)
  if (record.kind !== where.kind) problems.push(`record kind ${record.kind} does not match trailer ${where.kind}`)
  if (where.lamport !== undefined && record.lamport !== where.lamport) problems.push(`lamport ${record.lamport} does not match Exp-Lamport ${where.lamport}`)
  if (record.lane !== where.lane) problems.push(`record says lane ${record.lane} but sits on lane ${where.lane}`)
  void c
  return problems.length ? {problems} : {record, problems}
}
