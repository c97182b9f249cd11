import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {GIT_ENV} from './repo.js'
import {encodeRecord, prepare, recordPath, seal, type RecordDraft} from '../../src/records/index.js'

/**
 * One record as a raw commit, the only one of a lane of its own making at a Lamport clock of
 * its choosing (no store checks: a copy under an id another lane holds is written), like
 * another clone's sync would bring. Returns the record's id.
 */
export function rawCommit(repo: string, lane: string, lamport: number, draft: RecordDraft): string {
  const rec = seal(prepare(draft), {lane, lamport, createdAt: '2026-01-01T00:00:00.000Z'})
  const file = path.join(repo, '.git', 'raw.json')
  fs.writeFileSync(file, encodeRecord(rec))
  const blob = execFileSync('git', ['hash-object', '-w', file], {cwd: repo, encoding: 'utf8'}).trim()
  const env = {...GIT_ENV, GIT_INDEX_FILE: path.join(repo, '.git', 'raw-index')}
  execFileSync('git', ['read-tree', '--empty'], {cwd: repo, env})
  execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${blob},${recordPath(rec.kind, rec.id)}`], {cwd: repo, env})
  const tree = execFileSync('git', ['write-tree'], {cwd: repo, env, encoding: 'utf8'}).trim()
  const msg = `${rec.kind}: copy\n\nExp-Record: ${rec.kind}/${rec.id}\nExp-Schema: ${rec.schema}\nExp-Lamport: ${lamport}\n${rec.cites.length ? `Exp-Cites: ${rec.cites.join(' ')}\n` : ''}`
  const commit = execFileSync('git', ['commit-tree', tree], {cwd: repo, env, encoding: 'utf8', input: msg}).trim()
  execFileSync('git', ['update-ref', `refs/research/lanes/${lane}`, commit], {cwd: repo})
  return rec.id
}
