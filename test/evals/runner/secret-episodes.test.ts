import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import type {Agent} from '../../../src/agents/types.js'
import {GitRecordStore} from '../../../src/store/index.js'
import {runEvaluation} from '../../../src/evals/runner/run.js'
import {loadDataset} from '../../../src/evals/runner/dataset.js'
import {replayEpisode} from '../../../src/evals/evaluator/world.js'
import {exp, expJson} from '../../helpers/cli.js'
import {exampleRepo} from '../../helpers/evolve.js'
import {GIT_ENV, tempDir} from '../../helpers/repo.js'
import {runOpts} from '../../helpers/research.js'
import {SMALL_SPLITS, smallBenchmarkRepo} from '../../helpers/loop-example.js'

// Found by an attack sweep: an agent's final answer of `<exp's HOME>ghp_…` (HOME is easy to
// guess: /root, /home/runner in CI) passed the redactor as `~ghp_…`, which the store refuses:
// the whole run stopped with exit 2 and no traces. docs/trust.md says an agent cannot stop a
// run. The redactor now replaces the home folder first (test/redact/store-check.test.ts);
// and an episode whose records the store would refuse anyway ends invalid, the run goes on.

const SECRET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123'
const TOKEN = `ghp_${SECRET}`

/** every object of the repository, as git's own cat-file gives them */
const allObjects = (repo: string) => execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {cwd: repo, env: GIT_ENV, maxBuffer: 1 << 28}).toString('latin1')

t.test('an agent that answers with a token glued to the home folder: the run completes, the token masked, in no git object', async t => {
  const repo = await exampleRepo(t)
  fs.mkdirSync(path.join(repo, 'sc1'))
  fs.copyFileSync(path.join(repo, 'scenarios', 'train-access-github.yaml'), path.join(repo, 'sc1', 'train-access-github.yaml'))
  const home = tempDir(t, 'exp-home-')
  // (the home path is in the agent's script, not its spec: the spec is recorded in the manifest)
  const glued = `${home}${TOKEN}`
  fs.writeFileSync(path.join(repo, 'agent.sh'), `#!/bin/sh\nread start\necho '{"type":"tool_call","id":"c1","tool":"get_employee","arguments":{"employee_id":"${glued}"}}'\nread result\necho '{"type":"final","answer":"done ${glued}"}'\n`)
  const env = {HOME: home}
  const r = await exp(['run', 'train', '--scenarios', 'sc1', '--agent', 'command:/bin/sh agent.sh'], {cwd: repo, env})
  t.equal(r.code, 0, r.stderr)
  const traces = await expJson<{body: {final_answer: string | null; actions: {arguments: {employee_id?: string}}[]; status: string}}[]>(['ledger', '--kind', 'trace'], {cwd: repo, env})
  t.equal(traces.length, 1, 'the trace is recorded')
  t.equal(traces[0]!.body.final_answer, 'done ~[redacted]', 'the home folder replaced, the token masked')
  t.equal(traces[0]!.body.actions[0]!.arguments.employee_id, '~[redacted]', 'in the tool call too')
  t.equal(traces[0]!.body.status, 'completed', 'an episode like any other')
  const objects = allObjects(repo)
  t.equal(objects.indexOf(SECRET), -1, 'the token is in no git object')
  t.equal(objects.indexOf(home), -1, 'nor the home folder')
  const fsck = await exp(['fsck'], {cwd: repo, env})
  t.equal(fsck.code, 0, fsck.stdout + fsck.stderr)
})

t.test('an episode whose records the store would refuse for a secret ends invalid, recorded without what the agent said or did; the run goes on', async t => {
  const repo = await smallBenchmarkRepo(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  // an agent whose words no redactor masks (here: none at all) in its first repetition, and an
  // ordinary answer in its second
  const leaky: Agent = {
    name: 'leaky',
    run: async (_input, invoke, ctx) => {
      if (ctx.repetition > 0) return {finalAnswer: 'done', messages: [{role: 'assistant', content: 'done'}], usage: {tokensIn: 3, tokensOut: 1}}
      await invoke({tool: 'get_employee', arguments: {employee_id: TOKEN}})
      return {finalAnswer: `here it is: ${TOKEN}`, messages: [{role: 'assistant', content: `x${TOKEN}`}], usage: {tokensIn: 3, tokensOut: 1}}
    },
  }
  const res = await runEvaluation(store, runOpts(repo, {split: 'train', repeat: 2, agent: 'leaky', agentOptions: {factories: {leaky: () => leaky}}, redact: s => s}))
  t.equal(res.total, SMALL_SPLITS.train * 2, 'every episode is counted')
  t.equal(res.invalid, SMALL_SPLITS.train, 'the leaking ones are invalid')
  const l = await store.ledger()
  const traces = l.records({kinds: ['trace']})
  const verifications = l.records({kinds: ['verification']})
  t.equal(traces.length, SMALL_SPLITS.train * 2, 'and recorded, as the others are')
  const withheld = traces.filter(tr => tr.body.repetition === 0)
  for (const tr of withheld) {
    t.same([tr.body.status, tr.body.messages, tr.body.actions, tr.body.final_answer, tr.body.usage.tool_calls], ['invalid', [], [], null, 0], 'nothing the agent said or did')
    t.match(tr.body.invalid_reason, /^secret: the episode's trace held a GitHub token in (messages|actions|final_answer), which no record may hold/)
  }
  for (const v of verifications.filter(v => v.body.repetition === 0)) {
    t.equal(v.body.valid, false)
    t.match(v.body.invalid_reason, /^secret: /)
  }
  t.ok(verifications.filter(v => v.body.repetition === 1).every(v => v.body.valid), 'the other episodes are valid')
  // the invalid episodes replay to their verdicts, as every recorded episode must
  const {scenarios} = await loadDataset(path.join(repo, 'scenarios'), 'train')
  const byTrace = new Map(verifications.map(v => [v.body.trace, v.body]))
  for (const tr of withheld) {
    const out = replayEpisode(tr.body, byTrace.get(tr.id)!, scenarios.find(s => s.id === tr.body.scenario)!)
    t.same(out, {ok: true}, `${tr.body.scenario} replays`)
  }
  const reasons = JSON.stringify(withheld.map(tr => tr.body.invalid_reason))
  t.notMatch(reasons, /ghp_|ABCDEFGH/, 'the reason names the kind of secret, never its value')
  t.equal(allObjects(repo).indexOf(SECRET), -1, 'the token is in no git object')
})
