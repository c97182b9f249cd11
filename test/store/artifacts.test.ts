import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFile} from 'node:child_process'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo, git, gitIn, handCommit, GIT_ENV, node} from '../helpers/repo.js'
import {BIN} from '../helpers/cli.js'
import {exp, expJson} from '../helpers/cli.js'

/** Run the CLI and keep stdout as bytes (an artifact is not text). */
function expBytes(args: string[], cwd: string): Promise<{code: number; stdout: Buffer}> {
  return new Promise(resolve => {
    const [cmd, argv] = node([BIN, ...args])
    execFile(cmd, argv, {cwd, env: GIT_ENV, encoding: 'buffer', maxBuffer: 1 << 28}, (err, stdout) => resolve({code: err ? ((err as {code?: number}).code ?? 1) : 0, stdout}))
  })
}

t.test('an artifact is a blob beside its record, added by the same commit, read back by path and digest', async t => {
  const repo = await makeRepo(t)
  const content = Buffer.concat([Buffer.from('a log of 3 MB\n'.repeat(220_000)), Buffer.from([0, 1, 2, 255])])
  const s = await GitRecordStore.open(repo)
  const r = await s.append({kind: 'note', body: {text: 'the run log is attached'}, artifacts: [{name: 'run.log', content}]}, {lane: 'a'})
  const rec = (await s.ledger()).load(r.id)
  const ref = rec.artifacts![0]!
  t.match(ref.path, /^artifacts\/[0-9a-f]{2}\/[0-9a-f]{64}$/)
  const files = (await git(repo, 'show', '--format=', '--name-status', 'refs/research/lanes/a')).trim().split('\n')
  t.same(files.map(f => f.split('\t')[1]).sort(), [ref.path, `research/notes/${r.id.slice(3, 5)}/${r.id}.json`].sort(), 'one commit adds the record and its artifact')
  t.equal(Number((await git(repo, 'cat-file', '-s', `refs/research/lanes/a:${ref.path}`)).trim()), content.length)
  t.same(await s.readArtifact(r.id, 'run.log'), content)
  t.same((await fsck(s)).problems, [])
  s.dropCache()
  t.same((await s.ledger()).load(r.id), rec, 'a full read from history gives the same record')
  await s.close()
  // a later commit that changes the artifact's bytes is caught; the record's own commit still has the original
  await handCommit(repo, 'a', ref.path, 'tampered\n', 'note: tamper\n\nExp-Record: note/nt-000000000000000000000000\n')
  const s2 = await GitRecordStore.open(repo, {onWarning: () => undefined})
  const report = await fsck(s2)
  t.ok(report.problems.some(p => p.code === 'commit-changes' && /modifies artifacts\//.test(p.message)), 'fsck names the commit that modified it')
  t.same(await s2.readArtifact(r.id, 'run.log'), content, 'the record still gets the content its digest names')
  await s2.close()
})

t.test('exp append --artifact stores a file over the record limit; inspect lists it and prints it back', async t => {
  const repo = await makeRepo(t)
  const big = Buffer.alloc(3 * 1024 * 1024, 'z')
  fs.writeFileSync(path.join(repo, 'big.txt'), big)
  fs.writeFileSync(path.join(repo, 'n.yaml'), 'text: details in big.txt\n')
  const r = await exp(['append', 'note', 'n.yaml', '--lane', 'x', '--artifact', 'big.txt'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  const id = r.stdout.trim()
  const text = await exp(['inspect', id], {cwd: repo})
  t.match(text.stdout, new RegExp(`artifact big\\.txt  ${big.length} bytes  sha256:[0-9a-f]{64}`))
  const out = await expBytes(['inspect', id, '--artifact', 'big.txt'], repo)
  t.equal(out.code, 0)
  t.ok(out.stdout.equals(big), 'the bytes come back as they went in')
  const missing = await exp(['inspect', id, '--artifact', 'nope.txt'], {cwd: repo})
  t.equal(missing.code, 3)
  t.match(missing.stderr, /unknown artifact: nope\.txt of nt-/)
  const batch = await exp(['append', 'note', '-', '--batch', '--artifact', 'big.txt', '--lane', 'x'], {cwd: repo, input: '{"text":"a"}\n'})
  t.equal(batch.code, 2)
  t.equal((await expJson<unknown[]>(['ledger'], {cwd: repo})).length, 1)
  t.equal((await exp(['fsck'], {cwd: repo})).code, 0)
})

t.test('a blob larger than the size its record names is refused, not read: readArtifact and fsck', async t => {
  const repo = await makeRepo(t)
  const content = Buffer.from('the real log\n')
  const s = await GitRecordStore.open(repo)
  const r = await s.append({kind: 'note', body: {text: 'log attached'}, artifacts: [{name: 'run.log', content}]}, {lane: 'b'})
  const ref = (await s.ledger()).load(r.id).artifacts![0]!
  await s.close()
  // the record's commit made again by hand, the same record beside a 4 MB blob at the artifact's path
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/b')).trim()
  const big = path.join(repo, '.git', 'big.bin')
  fs.writeFileSync(big, Buffer.alloc(4 * 1024 * 1024, 'x'))
  const blob = (await git(repo, 'hash-object', '-w', big)).trim()
  const env = {GIT_INDEX_FILE: path.join(repo, '.git', 'forge.idx')}
  const run = (args: string[], input?: string) => gitIn(repo, args, input, env)
  await run(['read-tree', tip])
  await run(['update-index', '--cacheinfo', `100644,${blob},${ref.path}`])
  const tree = await run(['write-tree'])
  const message = await git(repo, 'log', '-1', '--format=%B', tip)
  const forged = await run(['commit-tree', tree, '-F', '-'], message)
  await git(repo, 'update-ref', 'refs/research/lanes/b', forged)
  const s2 = await GitRecordStore.open(repo, {onWarning: () => undefined})
  t.teardown(() => s2.close())
  t.equal((await s2.ledger()).get(r.id)?.commit, forged, 'the record reads, on the forged commit')
  await t.rejects(s2.readArtifact(r.id, 'run.log'), {code: 'E_CORRUPT', message: new RegExp(`${ref.path} is 4194304 bytes, not the ${content.length} its record names`)})
  const report = await fsck(s2)
  t.ok(report.problems.some(p => p.code === 'artifact-digest' && /is 4194304 bytes, not the 13 its record names/.test(p.message)), 'fsck names it')
})
