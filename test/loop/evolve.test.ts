import t from 'tap'
import {spawn} from 'node:child_process'
import {exp, expJson, BIN} from '../helpers/cli.js'
import {git, GIT_ENV, node} from '../helpers/repo.js'
import {exampleRepo, type EvolveJson} from '../helpers/evolve.js'

// the initial commit is pinned so that two repositories start from the same state
const PINNED = {GIT_AUTHOR_DATE: '2026-11-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-11-01T00:00:00Z'}

t.test('a killed evolve started again finishes with no duplicate record, fsck clean, and the same ids as an uninterrupted run', async t => {
  const [a, b] = await Promise.all([exampleRepo(t, PINNED), exampleRepo(t, PINNED)])
  t.equal((await git(a, 'rev-parse', 'main')).trim(), (await git(b, 'rev-parse', 'main')).trim(), 'same starting state')
  const args = ['evolve', '--iterations', '3', '--train-repeat', '2', '--eval-repeat', '2', '--lane', 'me', '--json']
  const straight = await expJson<EvolveJson>(args.slice(0, -1), {cwd: a})
  // b: killed once main has moved (after the first promotion), then started again
  const start = (await git(b, 'rev-parse', 'main')).trim()
  const child = spawn(...node([BIN, ...args]), {cwd: b, env: GIT_ENV, stdio: 'ignore'})
  const closed = new Promise(r => child.on('close', r))
  for (let i = 0; i < 600; i++) {
    if ((await git(b, 'rev-parse', 'main')).trim() !== start) break
    await new Promise(r => setTimeout(r, 100))
  }
  await new Promise(r => setTimeout(r, 300))
  child.kill('SIGKILL')
  await closed
  const resumed = await expJson<EvolveJson>(args.slice(0, -1), {cwd: b})
  t.ok(resumed.iterations.length > 0)
  const fsck = await exp(['fsck'], {cwd: b})
  t.equal(fsck.code, 0, fsck.stdout)
  const ids = (await expJson<{id: string}[]>(['ledger'], {cwd: b})).map(r => r.id)
  t.equal(new Set(ids).size, ids.length, 'no record twice')
  const decisionsB = new Set((await expJson<{id: string}[]>(['ledger', '--kind', 'decision'], {cwd: b})).map(d => d.id))
  for (const it of straight.iterations) if (it.decision) t.ok(decisionsB.has(it.decision.id), `decision of iteration ${it.iteration} made again with the same id`)
  const mainA = (await git(a, 'rev-list', '--first-parent', 'main')).trim().split('\n')
  const mainB = (await git(b, 'rev-list', '--first-parent', 'main')).trim().split('\n')
  t.same(mainB.slice(-mainA.length), mainA, 'main of the uninterrupted run is a prefix of the resumed one')
})
