import t, {type Test} from 'tap'
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {canonicalJson, type ExpRecord} from '../../src/records/index.js'
import {makeRepo, handCommit} from '../helpers/repo.js'

/**
 * A keyed record's id does not depend on its content, so other bytes under its id pass every
 * check of the bytes alone. A later commit that rewrites its file must not change what the
 * record is: its bytes are those its own commit added.
 */
async function setup(t: Test): Promise<{repo: string; id: string; file: string; forged: string}> {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const orig = await s.append({kind: 'note', key: 'the-key', body: {text: 'the original'}}, {lane: 'v'})
  await s.append({kind: 'note', body: {text: 'after it'}}, {lane: 'v'})
  const lamport = (await s.ledger()).get(orig.id)!.lamport
  await s.close()
  // the same key written elsewhere with other content: the same id, bytes that check out
  const other = await makeRepo(t)
  const o = await GitRecordStore.open(other)
  const f = await o.append({kind: 'note', key: 'the-key', body: {text: 'FORGED'}}, {lane: 'v'})
  const forged = {...(await o.ledger()).load(f.id), lamport} as ExpRecord
  await o.close()
  t.equal(f.id, orig.id, 'a keyed id is the same whatever the content')
  return {repo, id: orig.id, file: `research/notes/${orig.id.slice(3, 5)}/${orig.id}.json`, forged: `${canonicalJson(forged)}\n`}
}

const fresh = (repo: string) => fs.rmSync(path.join(repo, '.git/exp'), {recursive: true, force: true})

t.test('a commit without a record that rewrites a keyed record: the ledger keeps the bytes its commit added and names the rewrite; so does fsck', async t => {
  const {repo, id, file, forged} = await setup(t)
  await handCommit(repo, 'v', file, forged, 'chore: tidy')
  fresh(repo)
  const s = await GitRecordStore.open(repo)
  const ledger = await s.ledger()
  t.equal(ledger.load<'note'>(id).body.text, 'the original', 'a fresh read (a new clone) keeps the original')
  t.match(ledger.problems.map(p => p.message).join('\n'), new RegExp(`not a record commit; it modifies ${file} — records are append-only`))
  const report = await fsck(s)
  t.match(report.problems.map(p => p.message).join('\n'), new RegExp(`it modifies ${file}`), 'fsck names the rewritten record file')
  t.equal(report.problems.find(p => /modifies/.test(p.message))?.path, file)
  await s.close()
})

t.test('a record commit that also rewrites an earlier keyed record: fsck names the rewrite, and a clone that read the lane before keeps the original', async t => {
  const {repo, id, file, forged} = await setup(t)
  const before = await GitRecordStore.open(repo)
  t.equal((await before.ledger()).load<'note'>(id).body.text, 'the original')
  await before.close()
  // one commit: a genuine new record (with its trailers) and the rewritten file
  const scratch = await makeRepo(t)
  const sc = await GitRecordStore.open(scratch)
  const added = await sc.append({kind: 'note', body: {text: 'a new one'}}, {lane: 'v'})
  const rec = {...(await sc.ledger()).load(added.id), lamport: 3}
  await sc.close()
  const git = (args: string[], input?: string, env: NodeJS.ProcessEnv = {}) => execFileSync('git', args, {cwd: repo, input, env: {...process.env, ...env}}).toString().trim()
  const env = {GIT_INDEX_FILE: path.join(repo, '.git', 'forge.idx')}
  git(['read-tree', 'refs/research/lanes/v'], undefined, env)
  const newPath = `research/notes/${added.id.slice(3, 5)}/${added.id}.json`
  git(['update-index', '--add', '--cacheinfo', `100644,${git(['hash-object', '-w', '--stdin'], forged)},${file}`], undefined, env)
  git(['update-index', '--add', '--cacheinfo', `100644,${git(['hash-object', '-w', '--stdin'], `${canonicalJson(rec)}\n`)},${newPath}`], undefined, env)
  const tree = git(['write-tree'], undefined, env)
  const commit = git(['commit-tree', tree, '-p', 'refs/research/lanes/v', '-m', `note: a new one\n\nExp-Record: note/${added.id}\nExp-Schema: note@1\nExp-Lamport: 3`])
  git(['update-ref', 'refs/research/lanes/v', commit])
  const s = await GitRecordStore.open(repo)
  const ledger = await s.ledger()
  t.equal(ledger.load<'note'>(id).body.text, 'the original', 'the clone that had read the lane reads only the new commit, with its diff')
  t.match(ledger.problems.map(p => p.message).join('\n'), new RegExp(`record commit changes 2 files .*it modifies ${file}`))
  const report = await fsck(s)
  t.match(report.problems.map(p => p.message).join('\n'), new RegExp(`it modifies ${file} — records are append-only`), 'fsck names the rewrite')
  await s.close()
  // a lane of a few commits is read commit by commit even the first time: a new clone keeps the original too
  fresh(repo)
  const s3 = await GitRecordStore.open(repo, {onWarning: () => undefined})
  t.equal((await s3.ledger()).load<'note'>(id).body.text, 'the original', 'a fresh read of this small lane keeps the original')
  await s3.close()
})
