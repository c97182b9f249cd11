import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {exp, expJson} from '../../helpers/cli.js'
import {exampleRepo} from '../../helpers/evolve.js'
import {GIT_ENV, tempDir} from '../../helpers/repo.js'

// Found by an attack sweep: an agent's final answer of `<exp's HOME>ghp_…` (HOME is easy to
// guess: /root, /home/runner in CI) passed the redactor as `~ghp_…`, which the store refuses:
// the whole run stopped with exit 2 and no traces. docs/trust.md says an agent cannot stop a
// run. The redactor now replaces the home folder first (test/redact/store-check.test.ts).

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
