#!/usr/bin/env node
// npm run bench [-- NAME...]: runs the benchmarks (not part of the tests) and writes bench/results/*.json.
import {spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const all = readdirSync(path.join(root, 'bench')).filter(f => f.endsWith('.mjs') && !['lib.mjs', 'records.mjs', 'loop-records.mjs'].includes(f) && !f.includes('child')).map(f => f.replace(/\.mjs$/, ''))
const want = process.argv.slice(2).length ? process.argv.slice(2) : all
let failed = 0
for (const name of want) {
  console.log(`\n=== bench: ${name}`)
  const r = spawnSync(process.execPath, [path.join(root, 'bench', `${name}.mjs`)], {stdio: 'inherit', cwd: root})
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
