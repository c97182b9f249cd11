import t from 'tap'
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {BIN} from '../helpers/cli.js'
import {GIT_ENV, plain, tempDir} from '../helpers/repo.js'
import {expInvocation, shellWord} from '../../src/cli/invocation.js'

const bash = (script: string, cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<{code: number; stdout: string; stderr: string}>(resolve => {
    execFile(...plain('bash', ['-c', script]), {cwd, env: {...GIT_ENV, ...env}, maxBuffer: 16 * 1024 * 1024}, (err, stdout, stderr) => resolve({code: err ? 1 : 0, stdout, stderr}))
  })

// Problem 7 of issue 13: after `npm ci && node bin/run.js demo` there is no `exp` on PATH,
// and the demo's last line said `exp provenance onboarding`.
// test/cli/readme.test.ts runs the README's demo with no exp on PATH and its follow-up line as printed
t.test('follow-up commands name the exp that runs now, and quote what a shell would split', async t => {
  const base = tempDir(t)
  const noExp = (process.env.PATH ?? '').split(':').filter(d => !fs.existsSync(path.join(d, 'exp'))).join(':')
  const bin = path.join(base, 'bin')
  fs.mkdirSync(bin)
  t.equal(expInvocation(BIN, {PATH: noExp}), `node ${BIN}`, 'no exp on PATH: node and the path of this one')
  fs.symlinkSync(BIN, path.join(bin, 'exp'))
  t.equal(expInvocation(BIN, {PATH: `${bin}:${noExp}`}), 'exp', 'this very exp on PATH (npm install -g, npm link): exp')
  const other = path.join(base, 'other')
  fs.mkdirSync(other)
  fs.writeFileSync(path.join(other, 'exp'), '#!/bin/sh\n', {mode: 0o755})
  t.equal(expInvocation(BIN, {PATH: `${other}:${noExp}`}), `node ${BIN}`, 'another exp on PATH is not this one')
  t.equal(expInvocation(path.join(path.dirname(BIN), 'git-exp.js'), {PATH: `${bin}:${noExp}`}), 'exp', 'started as git exp')
  t.equal(shellWord("it's here"), `'it'\\''s here'`)
  t.equal(shellWord('/tmp/a folder/demo'), `'/tmp/a folder/demo'`)
  t.equal(shellWord('/tmp/plain-path_1'), '/tmp/plain-path_1')
  const dir = path.join(base, 'a folder with spaces')
  fs.mkdirSync(dir)
  const r = await bash(`cd ${shellWord(dir)} && pwd`, base, {})
  t.equal(r.stdout.trim(), fs.realpathSync(dir), 'the quoted folder is one word to the shell')
})
