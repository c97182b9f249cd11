#!/usr/bin/env node
// Writes the V8 code cache of the dist/vendor bundles (`<bundle>.<hash>.v8`, see src/vendor/load.ts)
// by running one real command, `exp append`, in a throwaway repository with
// EXP_WRITE_CODE_CACHE set: the cache then holds every function that start-up, oclif's
// config and parser, and the yaml reader compiled. Without it every command works the
// same, ~20 ms slower to start, so a failure here is a warning, not a failed build.
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dir = mkdtempSync(path.join(os.tmpdir(), 'exp-code-cache-'))
try {
  execFileSync('git', ['init', '-q', dir])
  writeFileSync(path.join(dir, 'note.yaml'), 'text: warms the code cache\n')
  execFileSync(process.execPath, [path.join(root, 'bin/run.js'), 'append', 'note', 'note.yaml', '--lane', 'build'], {
    cwd: dir,
    env: {...process.env, EXP_WRITE_CODE_CACHE: '1'},
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const written = readdirSync(path.join(root, 'dist/vendor')).filter(f => f.endsWith('.v8'))
  for (const b of ['oclif-core.cjs', 'yaml.cjs']) {
    if (!written.some(f => f.startsWith(`${b}.`))) console.warn(`code-cache: no code cache was written for dist/vendor/${b}`)
  }
} catch (e) {
  console.warn(`code-cache: not written (${e.message.split('\n')[0]}); commands start ~20 ms slower`)
} finally {
  rmSync(dir, {recursive: true, force: true})
}
