import fs from 'node:fs'
import path from 'node:path'
import {exp} from './cli.js'
import {cachedFixture} from './fixture-cache.js'
import {git, tempDir} from './repo.js'

/**
 * A small research contract written the way docs/contracts.md tells a user to: an editable
 * params.json, a protected evaluator in Python that reads it and writes metrics.json, and
 * evaluator-only data. The score peaks at x = 5 and y = 2 (deterministic: a paired test over
 * equal differences is decided), so a search finds improvements in a few steps.
 */
export const EVAL_PY = `import json, os, sys
split = sys.argv[1] if len(sys.argv) > 1 else "dev"
p = json.load(open("params.json"))
x, y = float(p["x"]), float(p["y"])
target = 5.0
if split == "holdout":
    # the held-out target is evaluator-only data
    target = json.load(open(os.path.join(os.environ["EXP_PRIVATE_DIR"], "data", "secret.json")))["target"]
score = -((x - target) ** 2) - (y - 2) ** 2
json.dump({"score": score, "x": x, "y": y}, open("metrics.json", "w"))
print(f"{split}: score {score}")
`

export const CONTRACT = `version: 2
name: quad
objective: bring x and y to the optimum
editable_scope:
  - params.json
protected_scope:
  - eval.py
  - data/**
  - .research/**
metric:
  name: score
  direction: maximize
  margin: 0.01
dev_eval:
  command: python3 eval.py dev
  timeout_seconds: 20
  repetitions: 2
holdout_eval:
  command: python3 eval.py holdout
  timeout_seconds: 20
  repetitions: 2
private_data:
  - data/secret.json
budget:
  max_attempts: 30
  max_parallel_lanes: 3
`

/** Write the quad contract into a repository's work tree and commit it on the current branch (the secret sealed first). */
export async function quadRepo(repo: string, exp: (args: string[]) => Promise<{code: number; stderr: string}>): Promise<void> {
  fs.writeFileSync(path.join(repo, 'eval.py'), EVAL_PY)
  fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 1, "y": 1}\n')
  fs.mkdirSync(path.join(repo, 'data'), {recursive: true})
  fs.writeFileSync(path.join(repo, 'data', 'secret.json'), '{"target": 4.5, "note": "TOP-SECRET-HOLDOUT-TARGET"}\n')
  fs.mkdirSync(path.join(repo, '.research', 'contracts'), {recursive: true})
  fs.writeFileSync(path.join(repo, '.research', 'contracts', 'quad.yaml'), CONTRACT)
  const lint = await exp(['contract', 'lint', 'quad'])
  if (lint.code !== 0) throw new Error(`contract lint: ${lint.stderr}`)
  const sealed = await exp(['seal', '--contract', 'quad'])
  if (sealed.code !== 0) throw new Error(`seal: ${sealed.stderr}`)
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'the quad contract')
}

const QUAD_INPUTS = ['src', 'schemas', 'test/helpers/contracts.ts', 'test/helpers/fixture-cache.ts', 'test/helpers/repo.ts']

/**
 * A repository for this test where quadRepo ran on main (after one empty commit, like
 * makeRepo): a copy of one made once per version of the code (cachedFixture), so the
 * contract tests do not each run `exp contract lint` and `exp seal` to get there.
 */
export async function quadFixture(t: {teardown(fn: () => void): void}): Promise<string> {
  const {dir} = await cachedFixture('quad', QUAD_INPUTS, async repo => {
    await git(repo, 'init', '-q', '-b', 'main')
    await git(repo, 'config', 'user.name', 'exp test')
    await git(repo, 'config', 'user.email', 'test@exp.invalid')
    await git(repo, 'commit', '-q', '--allow-empty', '-m', 'init')
    await quadRepo(repo, args => exp(args, {cwd: repo}))
    return {}
  })
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  if ((await git(repo, 'status', '--porcelain')).trim() !== '') throw new Error(`the copy of the quad fixture is not clean: ${repo}`)
  return repo
}

/**
 * The quad contract over the memory adapters (no evaluator-only data: held-out is judged like
 * dev): a workspace with main seeded, an empty memory store, and the options of an evaluation.
 */
export async function memoryQuad(t: {teardown(fn: () => void): void}, files: Record<string, string> = {}) {
  const {MemoryRecordStore} = await import('../../src/store/index.js')
  const {MemoryWorkspace} = await import('../../src/workspace/memory.js')
  const {makeRedactor} = await import('../../src/redact/index.js')
  const contract = CONTRACT.replace(/private_data:\n {2}- data\/secret.json\n/, '')
  const ws = new MemoryWorkspace()
  const main = ws.seed('main', {'eval.py': EVAL_PY.replace(/if split == "holdout":[\s\S]*?\n(?=score)/, ''), 'params.json': '{"x": 1, "y": 1}\n', '.research/contracts/quad.yaml': contract, ...files})
  const store = new MemoryRecordStore()
  const o = {lane: 'me', worktreeRoot: tempDir(t), redact: makeRedactor({env: {}}), mainRef: 'refs/heads/main'}
  return {contract, ws, main, store, o}
}
