import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {exp, expJson} from '../helpers/cli.js'
import {GIT_ENV, git, makeRepo} from '../helpers/repo.js'
import {quadRepo} from '../helpers/contracts.js'
import {GitRecordStore} from '../../src/store/index.js'

type Opened = {id: string; path: string; branch: string}
type Evaluated = {summary: {outcome: string; mean?: number}; verdicts: {body: {outcome: string; metric?: {value: number}; needs_retry?: {stop_reason: string}}}[]}
type Decided = {verdict: string; merge?: string; checks: {name: string; passed: boolean}[]}

t.test('a Python evaluator written from docs/contracts.md drives attempt new, eval and promote; its secret data stays sealed', async t => {
  const repo = await makeRepo(t)
  const run = (args: string[]) => exp(args, {cwd: repo})
  await quadRepo(repo, run)
  t.notOk(fs.existsSync(path.join(repo, 'data', 'secret.json')), 'the evaluator-only data left the work tree')
  const a = await expJson<Opened>(['attempt', 'new', 'quad', '--reason', 'x toward 5'], {cwd: repo})
  t.match(a, {id: /^at-/, branch: `exp/attempt/${a.id}`})
  t.notOk(fs.existsSync(path.join(a.path, 'data', 'secret.json')), 'nor is it in the attempt\'s work tree')
  fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": 4, "y": 2}\n')
  const dev = await expJson<Evaluated>(['attempt', 'eval', a.id], {cwd: repo})
  t.match(dev.summary, {outcome: 'positive', mean: -1})
  t.equal(dev.verdicts.length, 2)
  const d = await expJson<Decided>(['attempt', 'promote', a.id], {cwd: repo})
  t.equal(d.verdict, 'accept', JSON.stringify(d.checks))
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), d.merge)
  t.match(fs.readFileSync(path.join(repo, 'params.json'), 'utf8'), /"x": 4/, 'main checked out: the work tree follows the merge')
  const msg = await git(repo, 'log', '-1', '--format=%B', 'main')
  t.match(msg, new RegExp(`Exp-Promotes: ${a.id}`))
  const fsck = await expJson<{problems: unknown[]}>(['fsck'], {cwd: repo})
  t.same(fsck.problems, [], 'the verdicts and the decision re-derive')
  const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {cwd: repo, env: GIT_ENV, maxBuffer: 1 << 28})
  t.equal(objects.indexOf('TOP-SECRET-HOLDOUT-TARGET'), -1, 'the secret is in no object')
  // the held-out evaluation used it: its target (4.5) is not the dev one (5)
  const list = await expJson<{splits: {holdout?: {mean: number}}}[]>(['attempt', 'list', '--contract', 'quad'], {cwd: repo})
  t.equal(list[0]!.splits.holdout!.mean, -0.25)
})

t.test('an edit of a protected path, or a rename of one, is refused before the evaluator runs and recorded', async t => {
  const repo = await makeRepo(t)
  await quadRepo(repo, args => exp(args, {cwd: repo}))
  const a = await expJson<Opened>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.appendFileSync(path.join(a.path, 'eval.py'), '\nscore = 1000  # a better number\n')
  const r = await exp(['attempt', 'eval', a.id, '--json'], {cwd: repo})
  t.equal(r.code, 6)
  t.match(JSON.parse(r.stdout), {error: {code: 'E_BOUNDARY', data: {violations: ['protected path changed: eval.py']}}})
  const b = await expJson<Opened>(['attempt', 'new', 'quad'], {cwd: repo})
  await git(b.path, 'mv', 'eval.py', 'eval_old.py')
  fs.writeFileSync(path.join(b.path, 'params.json'), '{"x": 5, "y": 2}\n')
  const r2 = await exp(['attempt', 'eval', b.id, '--json'], {cwd: repo})
  t.equal(r2.code, 6)
  t.match(JSON.parse(r2.stdout).error.data.violations, ['protected path changed: eval.py', 'outside the editable scope: eval.py', 'outside the editable scope: eval_old.py'].slice(0, 1))
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const obs = ledger.select({kinds: ['observation']}).map(e => ledger.load<'observation'>(e).body).filter(o => o.attempt === a.id || o.attempt === b.id)
  t.equal(obs.length, 2, 'one observation each')
  t.ok(obs.every(o => !o.ran && !o.boundary.clean), 'the evaluator was not run, and the boundary is recorded')
  t.same(obs.find(o => o.attempt === b.id)!.boundary.changed.sort(), ['eval.py', 'eval_old.py', 'params.json'], 'the rename is a deletion plus an addition')
  const d = await expJson<Decided>(['attempt', 'promote', b.id], {cwd: repo})
  t.match(d, {verdict: 'reject', checks: [{name: 'clean boundary', passed: false}]})
})

t.test('a timeout is needs_retry; the frontier offers to resume it; the resumed attempt is scored', async t => {
  const repo = await makeRepo(t)
  await quadRepo(repo, args => exp(args, {cwd: repo}))
  fs.writeFileSync(path.join(repo, 'eval.py'), `import time, json\np = json.load(open("params.json"))\ntime.sleep(float(p.get("sleep", 0)))\njson.dump({"score": -abs(p["x"] - 5)}, open("metrics.json", "w"))\n`)
  const c = path.join(repo, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace(/timeout_seconds: 20/g, 'timeout_seconds: 1').replace('repetitions: 2', 'repetitions: 1') + 'resume:\n  max_retries: 1\n  timeout_multiplier: 4\n')
  await git(repo, 'commit', '-qam', 'a slow evaluator')
  const hyp = (await exp(['append', 'hypothesis', '-', '--lane', 'me'], {cwd: repo, input: JSON.stringify({statement: 'x = 5 with a slow run', mechanism: 'closer to the optimum', expected_effect: {metric: 'score', direction: 'increase'}, conditions: [], mechanism_family: 'quad'})})).stdout.trim()
  t.match(hyp, /^hy-/)
  const a = await expJson<Opened>(['attempt', 'new', 'quad', '--hypothesis', hyp, '--lane', 'me'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": 5, "y": 2, "sleep": 2}\n')
  const first = await expJson<Evaluated>(['attempt', 'eval', a.id, '--lane', 'me'], {cwd: repo})
  t.match(first.summary, {outcome: 'needs_retry'})
  t.match(first.verdicts[0]!.body, {needs_retry: {stop_reason: 'timeout'}})
  const f = await expJson<{selected: {hypothesis: string; allowed_action: string} | null}>(['frontier', '--agent-id', 'me'], {cwd: repo})
  t.match(f.selected, {hypothesis: hyp, allowed_action: 'resume_attempt'})
  const again = await expJson<Evaluated>(['attempt', 'eval', a.id, '--lane', 'me'], {cwd: repo})
  t.match(again.summary, {outcome: 'positive'}, 'resumed with four times the timeout, it is scored')
  t.equal(again.verdicts[0]!.body.metric!.value, 0)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const retries = ledger.select({kinds: ['observation']}).map(e => ledger.load<'observation'>(e).body).filter(o => o.attempt === a.id).map(o => [o.retry ?? 0, o.timed_out, o.timeout_seconds])
  t.same(retries, [[0, true, 1], [1, false, 4]])
})
