#!/usr/bin/env node
// Run npm scripts at once, each one's output printed whole when it ends (not interleaved),
// and exit with the first failure's status: `node scripts/parallel.mjs typecheck lint`.
// `npm test` runs the type check and the linter this way: each is single-threaded, and on two
// cores they take the time of the longer one instead of both.
import {spawn} from 'node:child_process'

const names = process.argv.slice(2)
const runs = names.map(
  name =>
    new Promise(resolve => {
      const child = spawn('npm', ['run', '--silent', name], {stdio: ['ignore', 'pipe', 'pipe']})
      const out = []
      child.stdout.on('data', d => out.push(d))
      child.stderr.on('data', d => out.push(d))
      child.on('error', e => resolve({name, code: 1, text: `${e.message}\n`}))
      child.on('close', (code, signal) => resolve({name, code: code ?? (signal ? 1 : 0), text: Buffer.concat(out).toString()}))
    }),
)
let failed = 0
for (const r of await Promise.all(runs)) {
  process.stdout.write(`> ${r.name}: ${r.code ? `failed (exit ${r.code})` : 'ok'}\n${r.text}`)
  if (r.code && !failed) failed = r.code
}
process.exit(failed)
