import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {createServer} from 'node:net'
import {exp, expJson} from '../helpers/cli.js'
import {tempDir} from '../helpers/repo.js'
import {benchmarkRepo} from '../helpers/research.js'
import {startFakeLlm, completion, RETRY_NOW} from '../helpers/fake-llm.js'
import {builtinCounts} from '../helpers/scenarios.js'

const VAL = (await builtinCounts()).validation

// Problem 3 of issue 13: agent failures were silent (exit 0, all invalid) and permanent (a
// rerun after the fix said everything was already recorded).

interface RunJson {
  evaluation: string
  total: number
  passed: number
  invalid: number
  resumed: number
  retried: number
  recorded: number
  body: {infrastructure?: number; invalid: number}
}

const count = async (repo: string, kind: string) => (await expJson<unknown[]>(['ledger', '--kind', kind], {cwd: repo})).length

t.test('a command agent that is not there: exit 1, said loudly, no evaluation; once it is there the same command retries every episode', async t => {
  const repo = await benchmarkRepo(t)
  const agent = path.join(tempDir(t), 'agent.mjs')
  const args = ['run', 'validation', '--agent', `command:${agent}`, '--lane', 'me']
  const dead = await exp(args, {cwd: repo})
  t.equal(dead.code, 1)
  t.match(dead.stderr, new RegExp(`error: no episode could run: all ${VAL} failed for infrastructure reasons, not the agent's`))
  t.match(dead.stderr, new RegExp(`spawn: cannot start .*agent\\.mjs.* \\(${VAL}x\\)`))
  t.match(dead.stderr, /hint: .*run the same command again: it retries these episodes/)
  const json = await exp([...args, '--json', '--no-retry-invalid'], {cwd: repo})
  t.equal(json.code, 1, 'still nothing ran, and --no-retry-invalid does not hide it')
  t.equal((JSON.parse(json.stdout) as {error: {code: string}}).error.code, 'E_AGENT_INFRA')
  t.equal(await count(repo, 'trace'), VAL, `what happened is recorded: ${VAL} invalid traces`)
  t.equal(await count(repo, 'evaluation'), 0, 'but no evaluation of an agent that never ran')

  fs.copyFileSync(path.resolve('examples/agents/echo-agent.mjs'), agent)
  fs.chmodSync(agent, 0o755)
  const fixed = await expJson<RunJson>(args, {cwd: repo})
  t.equal(fixed.retried, VAL, 'every episode retried')
  t.equal(fixed.resumed, 0)
  t.equal(fixed.invalid, 0)
  t.notOk(fixed.body.infrastructure)
  t.equal(await count(repo, 'trace'), 2 * VAL, 'the failed attempts stay in the ledger next to the retries')
  const again = await expJson<RunJson>(args, {cwd: repo})
  t.equal(again.resumed, VAL, 'a third run reuses the good episodes')
  t.equal(again.retried, 0)
  t.equal(again.evaluation, fixed.evaluation, 'and records the same evaluation')
})

t.test('an OpenAI endpoint answering 503: exit 1; after the fix the rerun retries; a partial outage is counted apart and said', async t => {
  const repo = await benchmarkRepo(t)
  let mode: 'down' | 'offboarding' | 'up' = 'down'
  const llm = await startFakeLlm(req => {
    const offboard = req.body.messages.some((m: {role: string; content?: string}) => m.role === 'user' && /offboard/i.test(m.content ?? ''))
    if (mode === 'down' || (mode === 'offboarding' && offboard)) return {status: 503, body: {error: {message: 'overloaded'}}, headers: RETRY_NOW}
    return {body: completion({content: 'done'})}
  })
  t.teardown(() => llm.close())
  const env = {OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-test-0123456789abcdef'}
  const args = ['run', 'validation', '--agent', 'openai:m', '--lane', 'me']
  const down = await exp(args, {cwd: repo, env})
  t.equal(down.code, 1)
  t.match(down.stderr, new RegExp(`no episode could run: all ${VAL} failed for infrastructure reasons.*http: HTTP 503`, 's'))

  mode = 'offboarding'
  const partial = await exp(args, {cwd: repo, env})
  t.equal(partial.code, 0, partial.stderr)
  const m = new RegExp(`warning: (\\d+) of ${VAL} episode\\(s\\) could not run: infrastructure failures, not the agent's`).exec(partial.stderr)
  t.ok(m, partial.stderr)
  const broken = Number(m?.[1])
  t.ok(broken > 0 && broken < VAL)
  t.match(partial.stdout, new RegExp(`^validation\\s+${VAL}\\s+\\d+\\s+\\d+\\s+0\\s+${broken}\\s`, 'm'), 'INVALID (the agent\'s) 0, INFRA apart')
  t.match(partial.stdout, new RegExp(`resumed: 0 episode\\(s\\) were already recorded, ${VAL} retried after an infrastructure failure`))
  const evals = await expJson<{body: {infrastructure?: number; invalid: number}}[]>(['ledger', '--kind', 'evaluation', '--json'], {cwd: repo})
  t.equal(evals.length, 1)
  t.equal(evals[0]!.body.infrastructure, broken, 'the evaluation counts them apart')

  mode = 'up'
  const up = await expJson<RunJson>(args, {cwd: repo, env})
  t.equal(up.retried, broken)
  t.equal(up.resumed, VAL - broken)
  t.equal(up.invalid, 0)
})

t.test('connection refused is an infrastructure failure too', async t => {
  const repo = await benchmarkRepo(t)
  const server = createServer()
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as {port: number}).port
  await new Promise(r => server.close(r))
  fs.writeFileSync(path.join(repo, '.research/config.yaml'), 'version: 1\nopenai:\n  max_retries: 0\n')
  const r = await exp(['run', 'validation', '--agent', 'openai:m', '--lane', 'me'], {cwd: repo, env: {OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: 'x'}})
  t.equal(r.code, 1)
  t.match(r.stderr, /no episode could run.*connection: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1/s)
})

// Found by a new user: `--agent 'command:python3 my_agent.py'` with no my_agent.py starts python,
// which exits at once: every episode a crash (the agent's own doing, not retried), exit 0 and
// not a word on stderr; the reason only in `exp inspect` of a trace.
t.test('a command agent that starts and exits at once in every episode: a warning with the reason', async t => {
  const repo = await benchmarkRepo(t)
  const r = await exp(['run', 'validation', '--agent', `command:${process.execPath} ${path.join(tempDir(t), 'my_agent.mjs')}`, '--lane', 'me'], {cwd: repo})
  t.equal(r.code, 0, 'the run is recorded as it went')
  t.match(r.stderr, new RegExp(`warning: every episode \\(${VAL}\\) was invalid: the agent ended none of them with an answer`))
  t.match(r.stderr, new RegExp(`  ${VAL}x crash: `))
  t.match(r.stderr, /check the agent \(--agent\)/)
})
