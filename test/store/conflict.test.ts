import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {makeRepo, git, GIT_ENV} from '../helpers/repo.js'
import {exp} from '../helpers/cli.js'
import {Ledger, type LedgerEntry} from '../../src/store/index.js'
import {canonicalJson, recordDigest, recordId, recordPath, type ExpRecord} from '../../src/records/index.js'

// Found by an attack sweep: another clone's lane held a well-formed record under the id of one
// of this clone's keyed records (the same key, other text, a lamport and lane name that sort
// first). Every view showed the other lane's bytes under that id, with no word of it: only
// `exp fsck` knew. A conflict is now named by every read, with both lanes.
t.test('a record another lane holds under the id of one of ours, with other content, is named by every read', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  const mine = await exp(['append', 'note', '-', '--lane', 'me', '--key', 'k1'], {cwd: repo, input: '{"text":"the original"}'})
  t.equal(mine.code, 0, mine.stderr)
  const id = mine.stdout.trim()
  t.equal(id, recordId('note', '', 'k1'))

  // the other lane's record, as its own clone would have written it, arrived by sync
  const body = {text: 'other bytes'}
  const rec = {body, cites: [], created_at: '2026-01-01T00:00:00.000Z', digest: '', id, key: 'k1', kind: 'note', lamport: 1, lane: 'a', schema: 'note@1'} as unknown as ExpRecord
  rec.digest = recordDigest(rec)
  const file = path.join(repo, '.git', 'rec.json')
  fs.writeFileSync(file, `${canonicalJson(rec)}\n`)
  const blob = (await git(repo, 'hash-object', '-w', file)).trim()
  const index = path.join(repo, '.git', 'other-index')
  const env = {...GIT_ENV, GIT_INDEX_FILE: index}
  execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${blob},${recordPath('note', id)}`], {cwd: repo, env})
  const tree = execFileSync('git', ['write-tree'], {cwd: repo, env, encoding: 'utf8'}).trim()
  const commit = execFileSync('git', ['commit-tree', tree], {cwd: repo, env, encoding: 'utf8', input: `note: other\n\nExp-Record: note/${id}\nExp-Schema: note@1\nExp-Lamport: 1\n`}).trim()
  await git(repo, 'update-ref', 'refs/research/lanes/a', commit)

  const ledger = await exp(['ledger'], {cwd: repo})
  t.equal(ledger.code, 0, 'a warning, as for any record a read leaves out')
  t.match(ledger.stderr, new RegExp(`warning: skipped refs/research/lanes/me \\w+: record ${id} here has other content than the one on refs/research/lanes/a`))
  const strict = await exp(['ledger', '--strict'], {cwd: repo})
  t.not(strict.code, 0, '--strict fails on it')
  // the views that answer from the ledger name it too (once), and exp inspect of that id
  for (const cmd of [['frontier'], ['hypotheses'], ['graph'], ['inspect', id]]) {
    const r = await exp(cmd, {cwd: repo})
    t.equal(r.code, 0, `exp ${cmd[0]}: ${r.stderr}`)
    t.equal(r.stderr.split(`record ${id} here has other content than the one on refs/research/lanes/a`).length - 1, 1, `exp ${cmd[0]} names the conflict once`)
  }
  const fsck = await exp(['fsck'], {cwd: repo})
  t.notMatch(fsck.stderr, /^warning: skipped/m, 'fsck lists it as its own problem, not as a warning too')
  // a copy with the same content on two lanes (two clones that wrote it alike) is no conflict
  const entry = (lane: string, digest: string): LedgerEntry => ({id, kind: 'note', digest, lane, ref: `refs/research/lanes/${lane}`, private: false, lamport: 1, commit: '0'.repeat(40), cites: []})
  const load = () => rec
  t.same(new Ledger([entry('a', rec.digest), entry('me', rec.digest)], load).problems, [])
  t.match(new Ledger([entry('a', rec.digest), entry('me', `sha256:${'0'.repeat(64)}`)], load).problems, [{code: 'duplicate-id', ref: 'refs/research/lanes/me', id}])
})
