#!/usr/bin/env node
// `npm test` builds first, and `npm ci` has just built (prepare): in CI that was the whole
// build twice (~17 s of CPU). This runs `npm run build` unless dist/ was built after every
// input of the build last changed: src/, the build's scripts, tsconfig.json, package.json and
// package-lock.json (the vendored dependencies). `--stamp` (the build's last step) records
// that a build just ended; `--force` always builds.
import {execFileSync} from 'node:child_process'
import {readdirSync, statSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const STAMP = path.join(root, 'dist', '.build-stamp')
const INPUTS = ['src', 'scripts/vendor.mjs', 'scripts/bundle-commands.mjs', 'scripts/code-cache.mjs', 'tsconfig.json', 'package.json', 'package-lock.json']

/** the newest modification time under `p` (a file, or a folder and everything in it) */
function newest(p) {
  const s = statSync(p)
  if (!s.isDirectory()) return s.mtimeMs
  let t = s.mtimeMs
  for (const e of readdirSync(p)) t = Math.max(t, newest(path.join(p, e)))
  return t
}

if (process.argv.includes('--stamp')) {
  writeFileSync(STAMP, `${new Date().toISOString()}\n`)
} else {
  let built = -1
  try {
    built = statSync(STAMP).mtimeMs
  } catch {
    // never built here
  }
  const changed = Math.max(...INPUTS.map(p => newest(path.join(root, p))))
  if (process.argv.includes('--force') || changed >= built) execFileSync('npm', ['run', 'build'], {cwd: root, stdio: 'inherit'})
  else console.log('build: dist/ is newer than every input of the build, not built again (npm run build builds anyway)')
}
