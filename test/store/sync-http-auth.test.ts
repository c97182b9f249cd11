import t, {type Test} from 'tap'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git, makeRepo, tempDir} from '../helpers/repo.js'
import {startGitHttpServer} from '../helpers/git-http-server.js'

// A hosted remote wants credentials. exp sync speaks http(s) through isomorphic-git, which knows
// nothing of git's own: it now uses what git fetch would (credential helpers, http.extraHeader).
const USER = 'ci-bot'
const PASSWORD = 'pw-7Hq2-Zx91-secret'

async function authedHub(t: Test): Promise<{url: string; repo: string; requests: {authorization?: string}[]}> {
  const root = tempDir(t)
  const bare = path.join(root, 'hub.git')
  await git(root, 'init', '-q', '--bare', '-b', 'main', bare)
  const requests: {authorization?: string}[] = []
  const server = await startGitHttpServer(root, {auth: {username: USER, password: PASSWORD}, requests})
  t.teardown(() => server.close())
  const repo = await makeRepo(t)
  await git(repo, 'push', '-q', bare, 'main')
  await git(repo, 'remote', 'add', 'origin', `${server.url}/hub.git`)
  const r = await exp(['append', 'note', '--lane', 'alice', '-'], {cwd: repo, input: JSON.stringify({text: 'hello'})})
  t.equal(r.code, 0, r.stderr)
  return {url: `${server.url}/hub.git`, repo, requests}
}

t.test("exp sync over http uses git's credential helper, and says nothing of the password", async t => {
  const {repo, requests} = await authedHub(t)
  const store = path.join(tempDir(t), 'credentials')
  // a helper as a user has one configured (here git's own `store`, reading a file)
  await git(repo, 'config', 'credential.helper', `store --file=${store}`)
  writeFileSync(store, `http://${USER}:${PASSWORD}@${new URL((await git(repo, 'remote', 'get-url', 'origin'))).host}\n`)
  const r = await exp(['sync', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.match(JSON.parse(r.stdout), {pushed: [{ref: 'refs/research/lanes/alice'}]})
  t.notOk(`${r.stdout}${r.stderr}`.includes(PASSWORD))
  t.ok(requests.some(x => x.authorization === undefined) && requests.some(x => x.authorization?.startsWith('Basic ')), 'asked without, then with the credentials')
})

t.test('exp sync over http sends http.extraHeader, as actions/checkout configures it', async t => {
  const {repo, url} = await authedHub(t)
  const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64')
  await git(repo, 'config', `http.${url.replace(/hub\.git$/, '')}.extraheader`, `AUTHORIZATION: basic ${basic}`)
  const r = await exp(['sync'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /1 pushed/)
  t.notOk(`${r.stdout}${r.stderr}`.includes(basic))
})

t.test('no credentials anywhere: a clear error at once (no prompt, no hang), nothing changed', async t => {
  const {repo} = await authedHub(t)
  const before = await git(repo, 'for-each-ref')
  const started = Date.now()
  const r = await exp(['sync'], {cwd: repo, env: {GIT_ASKPASS: '', SSH_ASKPASS: ''}})
  t.equal(r.code, 1)
  t.match(r.stderr, /origin \(http:\/\/127\.0\.0\.1:\d+\/hub\.git\) wants credentials \(HTTP 401\)/)
  t.match(r.stderr, /hint: give git credentials for it as for git fetch/)
  t.ok(Date.now() - started < 20_000, 'and fails fast')
  t.equal(await git(repo, 'for-each-ref'), before)

  // a helper with a wrong password: refused, and the helper is told to forget it
  const log = path.join(tempDir(t), 'helper.log')
  await git(repo, 'config', 'credential.helper', `!f() { echo "$1" >> ${log}; test "$1" = get && { echo username=${USER}; echo password=wrong; }; true; }; f`)
  const wrong = await exp(['sync'], {cwd: repo})
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /wants credentials \(HTTP 401\)/)
  t.same(readFileSync(log, 'utf8').trim().split('\n'), ['get', 'erase'], 'git credential fill, then reject')
})

t.test("a remote URL cannot add lines to git's credential request (another host's password)", async t => {
  // git's CVE-2020-5260: `host=github.com` smuggled in through a newline in the URL would make
  // the helper answer with the password stored for github.com, sent then to this remote
  const {repo, url} = await authedHub(t)
  const log = path.join(tempDir(t), 'helper.log')
  await git(repo, 'config', 'credential.helper', `!f() { cat >> ${log}; echo username=${USER}; echo password=${PASSWORD}; }; f`)
  const evil = url.replace('http://', 'http://x%0Ahost%3Dgithub.com@')
  const r = await exp(['sync', evil], {cwd: repo})
  t.equal(r.code, 1)
  t.match(r.stderr, /wants credentials \(HTTP 401\)/)
  t.notOk(existsSync(log), 'the helper was never asked')
})

t.test('the credential helper is asked once per sync, however many refs it lists, fetches and pushes', async t => {
  const {repo} = await authedHub(t)
  const more = await exp(['append', 'note', '--lane', 'bob', '-'], {cwd: repo, input: JSON.stringify({text: 'second lane'})})
  t.equal(more.code, 0, more.stderr)
  const log = path.join(tempDir(t), 'helper.log')
  // a helper that would prompt a person each time it is asked
  await git(repo, 'config', 'credential.helper', `!f() { echo "$1" >> ${log}; test "$1" = get && { echo username=${USER}; echo password=${PASSWORD}; }; true; }; f`)
  const r = await exp(['sync', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.same((JSON.parse(r.stdout) as {pushed: {ref: string}[]}).pushed.map(p => p.ref).sort(), ['refs/research/lanes/alice', 'refs/research/lanes/bob'])
  t.same(readFileSync(log, 'utf8').trim().split('\n'), ['get', 'store'], 'one fill, one approve')
})
