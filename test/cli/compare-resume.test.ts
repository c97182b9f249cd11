import t from 'tap'
import {spawn} from 'node:child_process'
import {BIN, expJson} from '../helpers/cli.js'
import {git, GIT_ENV, node} from '../helpers/repo.js'
import {exampleRepo} from '../helpers/evolve.js'

const ARGS = ['compare', '--arms', 'memory,compiler', '--budget-episodes', '100', '--iterations', '1', '--repeat', '1', '--train-repeat', '1']

interface CompareJson {
  id: string
  arms: {arm: string; namespace: string; success: number; total: number; episodes: number; knowledge: number; promoted?: number}[]
}

const shape = (r: CompareJson) => r.arms.map(a => ({arm: a.arm, success: a.success, total: a.total, episodes: a.episodes, knowledge: a.knowledge, promoted: a.promoted ?? null}))

t.test('exp compare killed with SIGKILL mid-arm and run again ends as a run nobody killed, recording nothing twice', async t => {
  const [clean, killed] = await Promise.all([exampleRepo(t), exampleRepo(t)])
  // the reference runs alongside the run that gets killed
  const referenceRun = expJson<CompareJson>(ARGS, {cwd: clean})
  const child = spawn(...node([BIN, ...ARGS]), {cwd: killed, env: GIT_ENV, stdio: 'ignore'})
  const closed = new Promise(r => child.on('close', r))
  // kill inside the memory arm's train stream, once some of its episodes are recorded
  let seen = 0
  for (let i = 0; i < 1200 && seen <= 20; i++) {
    const lanes = await git(killed, 'for-each-ref', '--format=%(refname)', 'refs/research/lanes/').catch(() => '')
    const lane = lanes.split('\n').find(l => l.endsWith('-memory'))
    seen = lane ? Number((await git(killed, 'rev-list', '--count', lane).catch(() => '0')).trim()) : 0
    if (seen <= 20) await new Promise(r => setTimeout(r, 25))
  }
  child.kill('SIGKILL')
  await closed
  t.ok(seen > 20, `killed after ${seen} records of the memory arm`)
  const memoryLane = async () => {
    const lane = (await git(killed, 'for-each-ref', '--format=%(refname)', 'refs/research/lanes/')).split('\n').find(l => l.endsWith('-memory'))!
    return Number((await git(killed, 'rev-list', '--count', lane)).trim())
  }
  const atKill = await memoryLane()

  const again = await expJson<CompareJson>(ARGS, {cwd: killed})
  const reference = await referenceRun
  t.same(shape(again), shape(reference), 'the same held-out results, episodes, knowledge and promotions as the run nobody killed')
  t.ok(atKill < (await memoryLane()), `the kill landed inside the memory arm (${atKill} of its records were in), not after it`)
  const traces = await expJson<{id: string; lane: string}[]>(['ledger', '--kind', 'trace'], {cwd: killed})
  t.equal(new Set(traces.map(x => x.id)).size, traces.length, 'no trace twice')
  t.equal(traces.length, again.arms.reduce((n, a) => n + a.episodes, 0), 'every recorded episode is one an arm counts')
})
