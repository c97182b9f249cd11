import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {spawn} from 'node:child_process'
import {BIN, exp} from '../helpers/cli.js'
import {GIT_ENV, makeRepo, node} from '../helpers/repo.js'

/** Run exp from a folder that is removed just before (a shell's `cd x && rmdir ../x`, then exp). */
function fromRemovedFolder(args: string[]): Promise<{code: number | null; stdout: string; stderr: string}> {
  const gone = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-gone-'))
  const [cmd, argv] = node([BIN, ...args])
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'cd "$1" && rmdir "$1" && shift && exec "$@"', 'sh', gone, cmd, ...argv], {env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => (stdout += d))
    child.stderr.on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => resolve({code, stdout, stderr}))
  })
}

t.test('a current folder that was removed: one error that says so, status 3; an absolute -C still works', async t => {
  const r = await fromRemovedFolder(['ledger'])
  t.equal(r.code, 3)
  t.equal(r.stderr, 'error: the current folder does not exist any more (it was removed)\nhint: cd to a folder that exists, or name one with -C /absolute/path\n', 'like git: what happened and what to do, no warning or uv_cwd error of oclif')
  t.equal(r.stdout, '')
  t.equal((await fromRemovedFolder(['ledger', '-C', 'relative'])).code, 3, 'a relative -C is relative to nothing')
  const repo = await makeRepo(t)
  t.equal((await exp(['append', 'note', '-'], {cwd: repo, input: 'text: here\n'})).code, 0)
  for (const args of [['ledger', '-C', repo], ['-C', repo, 'ledger'], ['ledger', `--cwd=${repo}`]]) {
    const ok = await fromRemovedFolder(args)
    t.equal(ok.code, 0, `exp ${args.join(' ')}: ${ok.stderr}`)
    t.match(ok.stdout, /note +nt-[0-9a-f]{24} +here/)
  }
})
