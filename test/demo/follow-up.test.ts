import t from 'tap'
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {BIN, exp} from '../helpers/cli.js'
import {GIT_ENV, tempDir} from '../helpers/repo.js'
import {expInvocation, shellWord} from '../../src/cli/invocation.js'

const bash = (script: string, cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<{code: number; stdout: string; stderr: string}>(resolve => {
    execFile('bash', ['-c', script], {cwd, env: {...GIT_ENV, ...env}, maxBuffer: 16 * 1024 * 1024}, (err, stdout, stderr) => resolve({code: err ? 1 : 0, stdout, stderr}))
  })

// Problem 7 of issue 13: after `npm ci && node bin/run.js demo` there is no `exp` on PATH,
// and the demo's last line said `exp provenance onboarding`.
t.test("the demo's follow-up commands run as printed, with or without exp on PATH", async t => {
  const base = tempDir(t)
  const noExp = (process.env.PATH ?? '').split(':').filter(d => !fs.existsSync(path.join(d, 'exp'))).join(':')
  const dir = path.join(base, 'a folder with spaces', 'demo')
  const r = await exp(['demo', '--dir', dir, '-n', '1'], {cwd: base, env: {PATH: noExp}})
  t.equal(r.code, 0, r.stderr)
  const line = /^explore: (.+)$/m.exec(r.stdout)?.[1]
  t.ok(line, r.stdout)
  t.match(line!, /node \S*bin\/run\.js provenance onboarding/, 'exp as it was started, not a command that is not there')
  const ran = await bash(line!, base, {PATH: noExp})
  t.equal(ran.code, 0, ran.stderr)
  t.match(ran.stdout, /onboarding v2/)
  t.match(ran.stdout, /Exp-Promotes|merge [0-9a-f]{7}/)

  // exp on PATH (npm install -g, npm link): the short form
  const bin = path.join(base, 'bin')
  fs.mkdirSync(bin)
  fs.symlinkSync(BIN, path.join(bin, 'exp'))
  t.equal(expInvocation(BIN, {PATH: `${bin}:${noExp}`}), 'exp')
  t.equal(expInvocation(BIN, {PATH: noExp}), `node ${BIN}`)
  t.equal(shellWord("it's here"), `'it'\\''s here'`)
  t.equal(shellWord('/tmp/plain-path_1'), '/tmp/plain-path_1')
})
