import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {runEvaluation} from '../../src/evals/runner/run.js'
import {loadDataset} from '../../src/evals/runner/dataset.js'
import {MemorySink} from '../../src/events/index.js'
import {GitRecordStore} from '../../src/store/index.js'
import {exp, ROOT} from '../helpers/cli.js'
import {benchmarkRepo, runOpts} from '../helpers/research.js'

const KEY = 'sk-test-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2'

t.test('exp run emits attempt, observation and verification per episode, then the summary; held-out ids never appear', async t => {
  const repo = await benchmarkRepo(t)
  // a few scenarios of each split keep the test quick; the runner is the same
  for (const f of fs.readdirSync(path.join(repo, 'scenarios'))) if (!/^(val|hold)-a/.test(f)) fs.rmSync(path.join(repo, 'scenarios', f))
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const sink = new MemorySink({now: () => new Date('2026-01-01T00:00:00Z')})
  const res = await runEvaluation(store, {...runOpts(repo, {split: 'validation', iteration: 3, snapshot: 'rc-000000000000000000000001'}), events: sink})
  const ev = sink.events
  const n = res.total
  t.same(ev.map(e => e.event), ['run_started', ...Array.from({length: n}, () => ['attempt_recorded', 'observation_recorded', 'verification_completed']).flat(), 'experience_recorded', 'run_completed'])
  t.ok(ev.every(e => e.run === res.manifest && e.iteration === 3 && e.snapshot === 'rc-000000000000000000000001'))
  const v = ev.find(e => e.event === 'verification_completed')!
  t.match(v, {attempt: String, task: String, evaluator: {grader: String, grader_digest: /^sha256:/, world: String}, artifacts: [{kind: 'verification', id: /^vr-/, digest: /^sha256:/}], status: /passed|failed|invalid/})
  t.match(ev.at(-1), {status: 'completed', duration_ms: Number})
  const held = new MemorySink({})
  const h = await runEvaluation(store, {...runOpts(repo, {split: 'holdout'}), events: held})
  const text = held.lines.join('')
  const ids = (await loadDataset(path.join(repo, 'scenarios'), 'holdout')).scenarios.map(s => s.id)
  t.ok(ids.length > 0)
  for (const id of ids) t.notOk(new RegExp(`"${id}"`).test(text), `${id} is hidden`)
  t.ok(held.events.filter(e => e.task !== undefined).every(e => e.task === '[private]'))
  t.equal(held.events.length, 3 + 3 * h.total)
})

t.test('events carry no secret: OPENAI_API_KEY in the env, leaked by a failing agent, stays out of the file', async t => {
  const repo = await benchmarkRepo(t)
  const file = path.join(repo, 'events.jsonl')
  // two scenarios are enough: each episode of a command agent is a process
  const few = path.join(repo, 'few')
  fs.mkdirSync(few)
  for (const f of fs.readdirSync(path.join(repo, 'scenarios')).filter(f => f.startsWith('val-')).slice(0, 2)) fs.copyFileSync(path.join(repo, 'scenarios', f), path.join(few, f))
  // the agent is given the key on purpose (--env): it can leak it, and exp must redact it
  const agent = `command:--env OPENAI_API_KEY node ${path.join(ROOT, 'test/fixtures/agents/leaky-agent.mjs')}`
  const r = await exp(['run', 'validation', '--agent', agent, '--lane', 'ci', '--events', file, '--scenarios', few], {cwd: repo, env: {OPENAI_API_KEY: KEY, HOME: repo}})
  t.equal(r.code, 0, r.stderr)
  const text = fs.readFileSync(file, 'utf8')
  t.match(text, /"event":"verification_completed"/)
  t.match(text, /"status":"invalid"/)
  t.match(text, /auth failed for key \[redacted\]/, 'the leak reached the event, redacted')
  t.notOk(text.includes(KEY), 'no API key')
  t.notOk(text.includes(repo), 'no absolute home path')
})
