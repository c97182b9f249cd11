#!/usr/bin/env node
// The overhead of exp around one run of a contract's evaluator (issue: <= 150 ms median):
// committing the work tree, the boundary check (git diff --no-renames), a fresh checkout
// (git worktree add/remove), the observation and verdict records. Measured in process as
// `exp attempt eval` does it, minus the evaluator command's own time measured alone, and
// beside what git itself takes for the checkout alone.
// usage: npm run bench -- contracts
import {execFileSync, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = rel => import(path.join(root, 'dist', rel))
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const N = Number(process.env.RUNS ?? 15)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-bench-contracts-'))
const git = (...a) => execFileSync('git', a, {cwd: dir, stdio: 'pipe'}).toString().trim()
git('init', '-q', '-b', 'main')
git('config', 'user.name', 'bench')
git('config', 'user.email', 'bench@exp.invalid')
fs.writeFileSync(path.join(dir, 'eval.mjs'), "import fs from 'node:fs'\nconst p = JSON.parse(fs.readFileSync('params.json', 'utf8'))\nfs.writeFileSync('metrics.json', JSON.stringify({score: -Math.abs(p.x - 5)}))\n")
fs.writeFileSync(path.join(dir, 'params.json'), '{"x": 0}\n')
fs.mkdirSync(path.join(dir, '.research/contracts'), {recursive: true})
fs.writeFileSync(path.join(dir, '.research/contracts/b.yaml'), 'version: 2\nname: b\nobjective: bench\neditable_scope: [params.json]\nprotected_scope: [eval.mjs, .research/**]\nmetric: {name: score, direction: maximize}\ndev_eval: {command: node eval.mjs, repetitions: 1, timeout_seconds: 30}\nholdout_eval: {command: node eval.mjs, repetitions: 1}\nbaseline: {value: -5}\n')
git('add', '-A')
git('commit', '-qm', 'bench contract')

const {GitRecordStore} = await dist('store/index.js')
const {GitWorkspace} = await dist('workspace/git.js')
const {openAttempt} = await dist('attempts/open.js')
const {evaluateAttempt} = await dist('attempts/evaluate.js')
const {makeRedactor} = await dist('redact/index.js')
const store = await GitRecordStore.open(dir)
const ws = new GitWorkspace(store)
const worktreeRoot = path.join(dir, '.git', 'exp', 'worktrees')
const redact = makeRedactor({env: {}})
const opened = await openAttempt(store, ws, {contract: 'b', lane: 'bench', mainRef: 'refs/heads/main', worktreeRoot})

const total = []
for (let i = 0; i < N + 2; i++) {
  fs.writeFileSync(path.join(opened.dir, 'params.json'), `{"x": ${i + 1}}\n`)
  const t0 = performance.now()
  await evaluateAttempt(store, ws, opened.id, {lane: 'bench', split: 'dev', worktreeRoot, redact})
  if (i >= 2) total.push(performance.now() - t0)
}
await store.close()
// the evaluator alone, started the same way (no shell), in a checkout
const command = []
for (let i = 0; i < N; i++) {
  const t0 = performance.now()
  spawnSync('node', ['eval.mjs'], {cwd: dir})
  command.push(performance.now() - t0)
}
// git alone: what a fresh checkout costs
const checkout = []
for (let i = 0; i < N; i++) {
  const t0 = performance.now()
  git('worktree', 'add', '--detach', '-q', path.join(dir, '.git', 'bench-wt'), 'main')
  git('worktree', 'remove', '--force', path.join(dir, '.git', 'bench-wt'))
  checkout.push(performance.now() - t0)
}
const out = {runs: N, eval_total_ms: median(total), evaluator_alone_ms: median(command), overhead_ms: median(total) - median(command), git_worktree_add_remove_ms: median(checkout), target_overhead_ms: 150}
console.log(`one exp attempt eval (1 repetition): ${out.eval_total_ms.toFixed(0)} ms median of ${N}`)
console.log(`  the evaluator command alone:        ${out.evaluator_alone_ms.toFixed(0)} ms`)
console.log(`  exp's overhead around it:           ${out.overhead_ms.toFixed(0)} ms (target <= 150 ms: ${out.overhead_ms <= 150 ? 'yes' : 'NO'})`)
console.log(`  of which git worktree add + remove alone: ${out.git_worktree_add_remove_ms.toFixed(0)} ms`)
fs.writeFileSync(path.join(root, 'bench/results/contracts.json'), `${JSON.stringify({date: new Date().toISOString(), node: process.version, ...out}, null, 2)}\n`)
fs.rmSync(dir, {recursive: true, force: true})
