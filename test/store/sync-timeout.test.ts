import t, {type Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import http from 'node:http'
import net from 'node:net'
import type {AddressInfo} from 'node:net'
import {makeRepo, git} from '../helpers/repo.js'
import {exp} from '../helpers/cli.js'

// A remote that takes the connection and then says nothing, or answers a byte at a time, kept
// `exp sync` waiting until it was stopped. Sync has a deadline (--timeout, 15 min by default).

/** A server on 127.0.0.1 that accepts connections and never answers. */
async function silent(t: Test): Promise<number> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer(s => {
    sockets.add(s)
    s.on('error', () => undefined)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const s of sockets) s.destroy()
    server.close()
  })
  return (server.address() as AddressInfo).port
}

/** An http server that starts a ref advertisement and then sends one byte every 300 ms. */
async function trickle(t: Test): Promise<number> {
  const timers = new Set<NodeJS.Timeout>()
  const server = http.createServer((req, res) => {
    res.writeHead(200, {'content-type': 'application/x-git-upload-pack-advertisement'})
    const body = Buffer.from('001e# service=git-upload-pack\n0000'.repeat(50))
    let i = 0
    const timer = setInterval(() => {
      if (i >= body.length || res.destroyed) return void (clearInterval(timer), res.end())
      res.write(body.subarray(i, ++i))
    }, 300)
    timers.add(timer)
    res.on('close', () => clearInterval(timer))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const x of timers) clearInterval(x)
    server.closeAllConnections()
    server.close()
  })
  return (server.address() as AddressInfo).port
}

t.test('a git:// remote that never answers: sync stops at --timeout, says so, and the next sync works', async t => {
  const port = await silent(t)
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  t.equal((await exp(['append', 'note', '-'], {cwd: repo, input: 'text: kept'})).code, 0)
  const began = Date.now()
  const r = await exp(['sync', `git://127.0.0.1:${port}/x.git`, '--timeout', '1'], {cwd: repo, timeoutMs: 30_000})
  const took = Date.now() - began
  t.equal(r.code, 1, r.stderr)
  t.match(r.stderr, /fetching from git:\/\/127\.0\.0\.1:\d+\/x\.git did not finish within 1 s/)
  t.match(r.stderr, /--timeout SECONDS/)
  t.ok(took < 10_000, `stopped near its deadline (${took} ms)`)
  // nothing lost, no lock left: a sync with a real remote works at once
  const hub = `${repo}-hub.git`
  await git(repo, 'init', '-q', '--bare', hub)
  const ok = await exp(['sync', hub], {cwd: repo})
  t.equal(ok.code, 0, ok.stderr)
  t.match(ok.stdout, /1 pushed/)
  t.equal((await exp(['fsck'], {cwd: repo})).code, 0)
})

t.test('an http remote that answers a byte at a time: sync stops at --timeout', async t => {
  const port = await trickle(t)
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  const began = Date.now()
  const r = await exp(['sync', `http://user:sekrit-token@127.0.0.1:${port}/x.git`, '--timeout', '1', '--json'], {cwd: repo, timeoutMs: 30_000})
  const took = Date.now() - began
  t.equal(r.code, 1, r.stderr)
  const err = JSON.parse(r.stdout) as {error: {code: string; message: string}}
  t.equal(err.error.code, 'E_SYNC')
  t.match(err.error.message, /did not finish within 1 s/)
  t.notMatch(r.stdout + r.stderr, /sekrit-token/, 'the credential is never shown')
  t.ok(took < 10_000, `stopped near its deadline (${took} ms)`)
})

t.test('--timeout takes whole seconds from 0 (no limit); anything else is a usage error', async t => {
  const repo = await makeRepo(t)
  for (const bad of ['-1', 'soon', '1.5']) {
    const r = await exp(['sync', 'origin', '--timeout', bad], {cwd: repo})
    t.equal(r.code, 2, `--timeout ${bad}: ${r.stderr}`)
    t.match(r.stderr, /timeout/)
  }
})

// Found by a sweep: git was stopped at the deadline, but the ssh command it started
// (core.sshCommand) went on until its connection closed, minutes later.
t.test('an ssh command that never connects: sync stops at --timeout, and the ssh command with git', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  const pidFile = path.join(repo, '..', `${path.basename(repo)}-ssh.pid`)
  const fake = path.join(repo, '..', `${path.basename(repo)}-ssh.sh`)
  fs.writeFileSync(fake, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 60\n`, {mode: 0o755})
  await git(repo, 'config', 'core.sshCommand', fake)
  const r = await exp(['sync', 'ssh://example.invalid/x.git', '--timeout', '1'], {cwd: repo, timeoutMs: 30_000})
  t.equal(r.code, 1, r.stderr)
  t.match(r.stderr, /did not finish within 1 s/)
  const pid = Number(fs.readFileSync(pidFile, 'utf8'))
  const alive = () => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  for (let i = 0; i < 30 && alive(); i++) await new Promise(resolve => setTimeout(resolve, 100))
  t.notOk(alive(), `the ssh command (pid ${pid}) was stopped with git`)
  if (alive()) process.kill(pid, 'SIGKILL')
})
