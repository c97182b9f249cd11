import t, {type Test} from 'tap'
import fs from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git, makeRepo, tempDir} from '../helpers/repo.js'
import {startGitHttpServer} from '../helpers/git-http-server.js'

// `exp init` configures fetch refspecs that map the remote's refs/research/* onto the local
// lanes (for plain `git fetch`). isomorphic-git, which exp uses for http(s) remotes, applied
// them on every fetch: a lane that had records on both sides was overwritten with the remote's
// tip (its local records gone from every view), and a fetch that failed after listing the refs
// left a lane pointing at an object that never arrived. Sync moves lanes itself, checked.

async function note(dir: string, lane: string, text: string): Promise<void> {
  const r = await exp(['append', 'note', '--lane', lane, '-'], {cwd: dir, input: JSON.stringify({text})})
  if (r.code !== 0) throw new Error(r.stderr)
}

async function texts(dir: string): Promise<string[]> {
  const r = await exp(['ledger', '--json'], {cwd: dir})
  return (JSON.parse(r.stdout) as {body: {text: string}}[]).map(x => x.body.text).sort()
}

/** Two clones that both ran `exp init`, with a smart-HTTP hub on 127.0.0.1 as origin; their branch pushed when asked. */
async function hub(t: Test, o: {pushMain: boolean; branch?: string}): Promise<{a: string; b: string; url: string}> {
  const branch = o.branch ?? 'main'
  const root = tempDir(t)
  await git(root, 'init', '-q', '--bare', '-b', branch, path.join(root, 'hub.git'))
  const server = await startGitHttpServer(root)
  t.teardown(() => server.close())
  const url = `${server.url}/hub.git`
  const a = await makeRepo(t)
  const b = await makeRepo(t)
  for (const c of [a, b]) {
    if (branch !== 'main') await git(c, 'branch', '-m', 'main', branch)
    await git(c, 'remote', 'add', 'origin', url)
    t.equal((await exp(['init'], {cwd: c})).code, 0)
  }
  t.match(await git(a, 'config', '--get-all', 'remote.origin.fetch'), /refs\/research\/\*:refs\/research\/\*/, 'exp init configured the lanes refspec')
  if (o.pushMain) await git(a, 'push', '-q', path.join(root, 'hub.git'), branch)
  return {a, b, url}
}

for (const branch of ['master', 'main']) t.test(`http sync after exp init never overwrites a lane that has records on both sides (${branch})`, async t => {
  const {a, b} = await hub(t, {pushMain: true, branch})
  await note(a, 'alice', 'one')
  t.equal((await exp(['sync'], {cwd: a})).code, 0)
  await note(b, 'alice', 'two, written in b')
  await note(a, 'alice', 'three')
  t.equal((await exp(['sync'], {cwd: a})).code, 0)
  const before = await git(b, 'rev-parse', 'refs/research/lanes/alice')

  const r = await exp(['sync', '--json'], {cwd: b})
  t.equal(r.code, 4, 'a diverged lane: exit 4')
  t.match(JSON.parse(r.stdout), {error: {code: 'E_DIVERGED', data: {transport: 'isomorphic-git', rejected: [{ref: 'refs/research/lanes/alice', kind: 'diverged'}]}}})
  t.equal(await git(b, 'rev-parse', 'refs/research/lanes/alice'), before, 'the lane is where it was')
  t.same(await texts(b), ['two, written in b'], 'and its record is still read')
  for (const c of [a, b]) t.notMatch(await git(c, 'for-each-ref', '--format=%(refname)'), /refs\/remotes\/(exp-sync|origin\/refs)/, 'no remote-tracking ref of sync\'s own, or of a lane, is left behind')

  // a lane only the remote moved is fetched as before
  await note(a, 'bob', 'four')
  t.equal((await exp(['sync'], {cwd: a})).code, 0)
  const again = await exp(['sync', '--json'], {cwd: b})
  t.match(JSON.parse(again.stdout), {error: {data: {fetched: [{ref: 'refs/research/lanes/bob'}]}}})
  t.same(await texts(b), ['four', 'two, written in b'])
})

t.test('an http remote whose HEAD names no commit: through the git binary, else a clear error and nothing changed', async t => {
  const {a, b} = await hub(t, {pushMain: false})
  await note(a, 'alice', 'one')
  await note(a, 'bob', 'from a')
  t.equal((await exp(['sync'], {cwd: a})).code, 0, 'the first push needs no fetch')
  await note(b, 'alice', 'two, written in b')
  const before = await git(b, 'rev-parse', 'refs/research/lanes/alice')
  const refs = await git(b, 'for-each-ref')

  // isomorphic-git alone cannot fetch from it
  const r = await exp(['sync'], {cwd: b, env: {EXP_NO_NATIVE_GIT: '1'}})
  t.equal(r.code, 1)
  t.match(r.stderr, /origin \(http:\/\/127\.0\.0\.1:\d+\/hub\.git\) has no HEAD: its default branch has no commit/)
  t.match(r.stderr, /hint: push a branch to it first \(git push origin main\)/)
  t.notMatch(r.stderr, /unexpected/)
  t.equal(await git(b, 'rev-parse', 'refs/research/lanes/alice'), before, 'the lane is where it was')
  t.equal(await git(b, 'for-each-ref'), refs, 'no ref was added (none naming an object that never arrived)')
  t.same(await texts(b), ['two, written in b'])

  // with the git binary (which exp needs anyway), sync goes through it
  const g = await exp(['sync', '--json'], {cwd: b})
  t.equal(g.code, 4, 'the diverged lane is reported')
  t.match(JSON.parse(g.stdout), {error: {code: 'E_DIVERGED', data: {transport: 'git', fetched: [{ref: 'refs/research/lanes/bob'}], rejected: [{ref: 'refs/research/lanes/alice', kind: 'diverged'}]}}})
  t.equal(await git(b, 'rev-parse', 'refs/research/lanes/alice'), before)
  t.same(await texts(b), ['from a', 'two, written in b'])
})

/** pkt-line framing of git's wire protocol */
const pkt = (line: string) => `${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}`

t.test('a hostile http remote advertising lane names git does not allow: refused one by one, every other lane syncs', async t => {
  const {a, b, url} = await hub(t, {pushMain: true})
  await note(a, 'alice', 'one')
  t.equal((await exp(['sync'], {cwd: a})).code, 0)
  const tip = await git(a, 'rev-parse', 'refs/research/lanes/alice')
  const evil = [`refs/research/lanes/../../../../../../../../tmp/exp-evil-${process.pid}`, 'refs/research/lanes/bad\u001b[31mname', 'refs/research/lanes/x.lock']
  // a proxy in front of the real server that adds names to its protocol v2 ref listing
  const target = new URL(url)
  const proxy = http.createServer((req, res) => {
    const body: Buffer[] = []
    req.on('data', c => body.push(c))
    req.on('end', () => {
      const sent = Buffer.concat(body)
      const up = http.request({host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers}, r => {
        const out: Buffer[] = []
        r.on('data', c => out.push(c))
        r.on('end', () => {
          let data = Buffer.concat(out)
          if (req.method === 'POST' && sent.includes('command=ls-refs') && sent.includes('refs/research/')) {
            const text = data.toString('latin1')
            data = Buffer.from(text.slice(0, -4) + evil.map(e => pkt(`${tip} ${e}\n`)).join('') + '0000', 'latin1')
          }
          const headers = {...r.headers}
          delete headers['content-length']
          res.writeHead(r.statusCode ?? 500, headers)
          res.end(data)
        })
      })
      up.end(sent)
    })
  })
  await new Promise<void>(r => proxy.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>(r => proxy.close(() => r())))
  const via = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}${target.pathname}`
  await git(b, 'remote', 'set-url', 'origin', via)

  const r = await exp(['sync', '--json'], {cwd: b})
  const out = JSON.parse(r.stdout) as {error: {code: string; data: {fetched: {ref: string}[]; rejected: {ref: string; kind: string; reason: string}[]}}}
  t.equal(out.error.code, 'E_REFUSED')
  t.same(out.error.data.fetched.map(f => f.ref), ['refs/research/lanes/alice'], 'the honest lane is fetched')
  t.same(out.error.data.rejected.map(x => x.ref).sort(), [...evil].sort(), 'each bad name is refused')
  t.ok(out.error.data.rejected.every(x => /a name exp does not take/.test(x.reason)))
  t.notOk(fs.existsSync(`/tmp/exp-evil-${process.pid}`) || fs.existsSync(`/tmp/exp-evil-${process.pid}.lock`), 'nothing written outside the repository')
  const text = await exp(['sync'], {cwd: b})
  t.notOk(text.stdout.includes('\u001b'), 'an escape sequence in a name is not printed raw')
  t.match(text.stdout, /REFUSED fetch refs\/research\/lanes\/bad\\u001b\[31mname/)
  t.same(await texts(b), ['one'])
})
