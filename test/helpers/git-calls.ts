import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * Put a `git` first on PATH that writes each call's arguments to a log and runs the real git:
 * how a test sees which git processes this process starts (`cat-file --batch`, `log …`).
 * PATH is put back when the test ends.
 */
export function countGitCalls(t: {teardown(fn: () => void): void}): {calls: () => string; clear: () => void; real: string} {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-git-calls-'))
  const log = path.join(bin, 'calls')
  const real = execFileSync('sh', ['-c', 'command -v git']).toString().trim()
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, {mode: 0o755})
  fs.writeFileSync(log, '')
  const PATH = process.env.PATH
  process.env.PATH = `${bin}${path.delimiter}${PATH}`
  t.teardown(() => {
    process.env.PATH = PATH
    fs.rmSync(bin, {recursive: true, force: true})
  })
  return {calls: () => fs.readFileSync(log, 'utf8'), clear: () => fs.writeFileSync(log, ''), real}
}
