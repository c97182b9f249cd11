import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {exampleRepo} from '../helpers/evolve.js'

// Found by a sweep: `exp evolve` with an agent that crashed in every episode printed
// "Training: 0 / 162 success", "stopped: no candidate left …" and exited 0, nothing on stderr,
// where `exp run` of the same agent warns that every episode was invalid.
t.test('an evolve whose agent ends no training episode with an answer says so with the reasons and exits 1, on every start', async t => {
  const repo = await exampleRepo(t)
  const agent = path.join(repo, 'crash.mjs')
  fs.writeFileSync(agent, "process.stderr.write('boom\\n')\nprocess.exit(3)\n")
  const args = ['evolve', '-n', '1', '--train-repeat', '1', '--eval-repeat', '1', '--lane', 'me', '--agent', 'command:node crash.mjs']
  for (let i = 0; i < 2; i++) {
    const r = await exp(args, {cwd: repo})
    t.equal(r.code, 1, r.stderr)
    t.match(r.stderr, /^error: every training episode \(\d+\) was invalid: the agent \(command:node crash\.mjs\) ended none of them with an answer: crash: exited with code 3 before a final answer \(\d+x\)$/m)
    t.match(r.stderr, /^hint: check the agent \(--agent\)/m)
    t.notMatch(r.stdout, /no candidate left/)
  }
  const json = await exp([...args, '--json'], {cwd: repo})
  t.equal(json.code, 1)
  t.equal((JSON.parse(json.stdout) as {error: {code: string}}).error.code, 'E_AGENT_INVALID')
})
