import t from 'tap'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git, makeRepo, tempDir} from '../helpers/repo.js'
import {startGitHttpServer} from '../helpers/git-http-server.js'
import {makeRedactor} from '../../src/redact/index.js'
import {remoteKey} from '../../src/store/git/sync.js'

// CI jobs often give a remote its token in the URL (https://x-access-token:TOKEN@host/…), and
// their logs are public: nothing exp prints, returns or names a ref after may carry it.
const SECRET = 'tok3n-S3CRET-4f9a2c71'

async function appendNote(dir: string, lane: string): Promise<void> {
  const r = await exp(['append', 'note', '--lane', lane, '-'], {cwd: dir, input: JSON.stringify({text: `from ${lane}`})})
  t.equal(r.code, 0, r.stderr)
}

async function allRefs(dir: string): Promise<string> {
  return git(dir, 'for-each-ref', '--format=%(refname)')
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = net.createServer()
  await new Promise<void>(r => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as net.AddressInfo).port
  await new Promise<void>(r => s.close(() => r()))
  return port
}

t.test('exp sync over http(s) never prints, returns or stores the credentials of the remote URL', async t => {
  const root = tempDir(t)
  const bare = path.join(root, 'hub.git')
  await git(root, 'init', '-q', '--bare', '-b', 'main', bare)
  const server = await startGitHttpServer(root)
  t.teardown(() => server.close())
  const url = server.url.replace('http://', `http://ci-bot:${SECRET}@`) + '/hub.git'
  const a = await makeRepo(t)
  await git(a, 'push', '-q', bare, 'main')
  await git(a, 'remote', 'add', 'origin', url)
  await appendNote(a, 'alice')

  const text = await exp(['sync'], {cwd: a})
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, /pushed {2}refs\/research\/lanes\/alice/, 'it synced (the credentials were used)')
  t.notOk(`${text.stdout}${text.stderr}`.includes(SECRET), 'not in what it prints')

  // a URL given on the command line names the remote: shown, and its tracking refs named, without them
  const b = await makeRepo(t)
  await appendNote(b, 'bob')
  // what an older exp left: tracking refs named after the URL with its credentials
  const leaked = `refs/exp/remotes/${remoteKey(url)}/research/lanes/alice`
  t.ok(leaked.includes(SECRET))
  await git(b, 'update-ref', leaked, 'HEAD')
  const given = await exp(['sync', url, '--json'], {cwd: b})
  t.equal(given.code, 0, given.stderr)
  t.notOk(`${given.stdout}${given.stderr}`.includes(SECRET), 'not in the JSON')
  const out = JSON.parse(given.stdout) as {remote: string; url: string; fetched: {ref: string}[]}
  t.equal(out.url, `${server.url.replace('http://', 'http://[redacted]@')}/hub.git`)
  t.equal(out.remote, out.url)
  t.same(out.fetched.map(f => f.ref), ['refs/research/lanes/alice'])
  for (const dir of [a, b]) t.notOk((await allRefs(dir)).includes(SECRET), 'not in a ref name (those an older exp made are gone)')
  t.notOk((await git(b, 'log', '--all', '--format=%B')).includes(SECRET), 'not in a commit')
})

t.test('an http(s) remote that cannot be reached, or refuses access, is a clear error without the credentials', async t => {
  const a = await makeRepo(t)
  await appendNote(a, 'alice')
  const before = await git(a, 'rev-parse', 'refs/research/lanes/alice')

  const port = await closedPort()
  const down = await exp(['sync', `http://ci-bot:${SECRET}@127.0.0.1:${port}/hub.git`, '--json'], {cwd: a})
  t.equal(down.code, 1)
  t.notOk(`${down.stdout}${down.stderr}`.includes(SECRET))
  const e1 = (JSON.parse(down.stdout) as {error: {code: string; message: string; hint: string}}).error
  t.equal(e1.code, 'E_SYNC')
  t.match(e1.message, /cannot reach http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/hub\.git: the connection was refused/)
  t.notMatch(e1.hint, /unexpected/)

  // a server that wants other credentials
  const denied = http.createServer((_req, res) => {
    res.writeHead(401, {'WWW-Authenticate': 'Basic realm="git"'})
    res.end('no')
  })
  await new Promise<void>(r => denied.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>(r => denied.close(() => r())))
  const p = (denied.address() as net.AddressInfo).port
  await git(a, 'remote', 'add', 'origin', `https://x-access-token:${SECRET}@127.0.0.1:${p}/hub.git`.replace('https:', 'http:'))
  const refused = await exp(['sync'], {cwd: a})
  t.equal(refused.code, 1)
  t.notOk(`${refused.stdout}${refused.stderr}`.includes(SECRET))
  t.match(refused.stderr, /origin \(http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/hub\.git\) wants credentials \(HTTP 401\): none were found, or they were refused/)
  t.match(refused.stderr, /hint: give git credentials for it as for git fetch/)
  t.equal(await git(a, 'rev-parse', 'refs/research/lanes/alice'), before, 'nothing lost')
})

t.test('a remote through the git binary (ssh) with a password in its URL: not in the error either', async t => {
  const a = await makeRepo(t)
  await appendNote(a, 'alice')
  const port = await closedPort()
  const r = await exp(['sync', `ssh://ci-bot:${SECRET}@127.0.0.1:${port}/hub.git`], {cwd: a, env: {GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o ConnectTimeout=5'}})
  t.equal(r.code, 1)
  t.notOk(`${r.stdout}${r.stderr}`.includes(SECRET), r.stderr)
  t.match(r.stderr, /git fetch from ssh:\/\/\[redacted\]@127\.0\.0\.1:\d+\/hub\.git failed/)
  // (found by a sweep: git says only "Could not read from remote repository"; what ssh said is the reason)
  t.match(r.stderr, /Could not read from remote repository: (connect to host|Could not resolve hostname)/)
  t.notOk((await allRefs(a)).includes(SECRET))
})

t.test('record text: credentials in a URL are redacted like any other secret', async t => {
  const redact = makeRedactor({env: {}})
  t.equal(redact(`git clone https://x-access-token:${SECRET}@github.com/o/r.git`), 'git clone https://[redacted]@github.com/o/r.git')
  t.equal(redact(`pushed to http://${SECRET}@example.org/r`), 'pushed to http://[redacted]@example.org/r', 'a token as the user name of an http URL')
  t.equal(redact('ssh://git@github.com/o/r.git and git@github.com:o/r.git'), 'ssh://git@github.com/o/r.git and git@github.com:o/r.git', 'a plain ssh user is not a secret')
  t.equal(redact(`ftp://me:${SECRET}@h/x`), 'ftp://[redacted]@h/x')
})

// Found by a sweep: a server that echoed the Authorization header it was sent (`500 error for
// Basic YWxpY2U6…`) had exp print the base64 of `user:token` as it was, in text and --json.
t.test('a server that echoes the Authorization header: neither the token nor its Basic form is printed', async t => {
  const echo = http.createServer((req, res) => {
    const auth = req.headers.authorization
    if (!auth) {
      res.writeHead(401, {'WWW-Authenticate': 'Basic realm="git"'})
      return void res.end('credentials, please')
    }
    res.writeHead(500, `error for ${auth}`)
    res.end(`you sent ${auth} (${Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString('hex')})`)
  })
  await new Promise<void>(r => echo.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>(r => echo.close(() => r())))
  const port = (echo.address() as net.AddressInfo).port
  const a = await makeRepo(t)
  const basic = (user: string, pass: string) => Buffer.from(`${user}:${pass}`).toString('base64')
  for (const json of [false, true]) {
    const r = await exp(['sync', `http://alice:${SECRET}@127.0.0.1:${port}/x.git`, ...(json ? ['--json'] : [])], {cwd: a})
    t.equal(r.code, 1, r.stderr)
    const out = `${r.stdout}${r.stderr}`
    t.match(out, /HTTP 500/, 'the error is reported')
    for (const form of [SECRET, basic('alice', SECRET), basic('alice', SECRET).slice(4, -4), Buffer.from(`alice:${SECRET}`).toString('hex')]) t.notOk(out.includes(form), `not in the output: ${form}`)
  }
  // the same with a password a credential helper gave
  const helped = 'helperS3CRET-77a1'
  await git(a, 'config', 'credential.helper', `!f() { echo username=bob; echo password=${helped}; }; f`)
  const r = await exp(['sync', `http://127.0.0.1:${port}/x.git`], {cwd: a})
  t.equal(r.code, 1)
  for (const form of [helped, basic('bob', helped)]) t.notOk(`${r.stdout}${r.stderr}`.includes(form), `not in the output: ${form}`)
})
