#!/usr/bin/env node
// Writes the V8 code cache of the dist/vendor bundles (`<bundle>.<hash>.v8`, see src/vendor/load.ts)
// by running real commands, `exp skills lint` and `exp append`, in a throwaway repository with
// EXP_WRITE_CODE_CACHE set: the cache then holds every function that start-up, oclif's
// config and parser, and the yaml reader compiled. Without it every command works the
// same, ~20 ms slower to start, so a failure here is a warning, not a failed build.
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dir = mkdtempSync(path.join(os.tmpdir(), 'exp-code-cache-'))
try {
  execFileSync('git', ['init', '-q', dir])
  writeFileSync(path.join(dir, 'note.yaml'), 'text: warms the code cache\n')
  mkdirSync(path.join(dir, 'skills', 'warm'), {recursive: true})
  writeFileSync(path.join(dir, 'skills', 'warm', 'SKILL.md'), '---\nname: warm\ndescription: Warms the code cache of the markdown parser.\n---\n\n# Warm\n\n## Steps\n\n1. Parse a *skill* with a [link](x) and `code`.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n')
  // (the markdown parser's cache from a skill's lint; then oclif's and yaml's from an append,
  // the most common start, each written over the one the lint left)
  // (the lint's findings about this skill, and its exit status, do not matter: it parsed one)
  const opts = {cwd: dir, env: {...process.env, EXP_WRITE_CODE_CACHE: '1'}, stdio: ['ignore', 'ignore', 'pipe']}
  spawnSync(process.execPath, [path.join(root, 'bin/run.js'), 'skills', 'lint', 'skills/warm'], opts)
  execFileSync(process.execPath, [path.join(root, 'bin/run.js'), 'append', 'note', 'note.yaml', '--lane', 'build'], opts)
  const written = readdirSync(path.join(root, 'dist/vendor')).filter(f => f.endsWith('.v8'))
  for (const b of ['oclif-core.cjs', 'yaml.cjs', 'markdown.cjs']) {
    if (!written.some(f => f.startsWith(`${b}.`))) console.warn(`code-cache: no code cache was written for dist/vendor/${b}`)
  }
} catch (e) {
  console.warn(`code-cache: not written (${e.message.split('\n')[0]}); commands start ~20 ms slower`)
} finally {
  rmSync(dir, {recursive: true, force: true})
}
