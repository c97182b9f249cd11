import t from 'tap'
import {spawn} from 'node:child_process'
import {exp, expJson, BIN} from '../helpers/cli.js'
import fs from 'node:fs'
import {git, GIT_ENV, node, tempDir} from '../helpers/repo.js'
import {exampleRepo, type EvolveJson} from '../helpers/evolve.js'

// the initial commit is pinned so that two repositories start from the same state
const PINNED = {GIT_AUTHOR_DATE: '2026-11-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-11-01T00:00:00Z'}

interface RunJson extends EvolveJson {
  run: {id: string; generation: number; resumed: number; finished_before: boolean}
  stopped?: string
}

// Problem 9 of issue 13: killed evolve runs did extra iterations and ended elsewhere.
t.test('an evolve run killed at random moments and started again ends exactly where an uninterrupted run ends', async t => {
  // b is a copy of a (with its held-out key): the sealed split is encrypted with a fresh IV at every init
  const a = await exampleRepo(t, PINNED)
  const b = tempDir(t)
  fs.cpSync(a, b, {recursive: true})
  t.equal((await git(a, 'rev-parse', 'main')).trim(), (await git(b, 'rev-parse', 'main')).trim(), 'same starting state')
  const args = ['evolve', '--iterations', '3', '--train-repeat', '1', '--eval-repeat', '1', '--lane', 'me']
  // the uninterrupted run in a, while b is killed and started again (two repositories: nothing shared)
  const straightRun = expJson<RunJson>(args, {cwd: a})
  // (awaited below; a rejection before then is not unhandled)
  straightRun.catch(() => undefined)

  // b: four kills (SIGKILL: no cleanup), each start picking up where the last one died: the
  // first at a random moment after the first promotion moved main, the others at random
  const start = (await git(b, 'rev-parse', 'main')).trim()
  const moved = async () => {
    for (let i = 0; i < 600 && (await git(b, 'rev-parse', 'main')).trim() === start; i++) await new Promise(r => setTimeout(r, 50))
  }
  const delays: number[] = []
  for (let k = 0; k < 4; k++) {
    const child = spawn(...node([BIN, ...args]), {cwd: b, env: GIT_ENV, stdio: 'ignore'})
    const closed = new Promise<number | null>(r => child.on('close', code => r(code)))
    const delay = k === 0 ? Math.floor(Math.random() * 600) : 300 + Math.floor(Math.random() * 1700)
    delays.push(delay)
    const wait = k === 0 ? moved().then(() => new Promise(r => setTimeout(r, delay))) : new Promise(r => setTimeout(r, delay))
    const finished = await Promise.race([closed.then(() => true), wait.then(() => false)])
    if (finished) break
    child.kill('SIGKILL')
    await closed
  }
  const resumed = await expJson<RunJson>(args, {cwd: b})
  const straight = await straightRun
  const why = `kills ${delays[0]} ms after the first promotion, then after ${delays.slice(1).join(', ')} ms`
  t.equal(resumed.iterations.length, straight.iterations.length, `the same number of iterations (${why})`)
  t.equal(resumed.promoted, straight.promoted, 'the same promotions')
  t.equal(resumed.rejected, straight.rejected)
  t.equal(resumed.holdout_before, straight.holdout_before)
  t.equal(resumed.holdout_after, straight.holdout_after, 'the same held-out result')
  t.same(resumed.iterations.map(i => i.decision?.id), straight.iterations.map(i => i.decision?.id), 'the same decisions, in the same order')
  const decisions = async (cwd: string) => (await expJson<{id: string}[]>(['ledger', '--kind', 'decision'], {cwd})).map(d => d.id).sort()
  const [db, da] = await Promise.all([decisions(b), decisions(a)])
  t.same(db, da, 'and no other decision')
  t.equal(await git(b, 'show', 'main:skills/onboarding/SKILL.md'), await git(a, 'show', 'main:skills/onboarding/SKILL.md'), 'the same SKILL.md')
  t.equal((await git(b, 'rev-list', '--first-parent', 'main')).trim(), (await git(a, 'rev-list', '--first-parent', 'main')).trim(), 'the same main, commit for commit')
  const fsck = await exp(['fsck'], {cwd: b})
  t.equal(fsck.code, 0, fsck.stdout)
  const ids = (await expJson<{id: string}[]>(['ledger'], {cwd: b})).map(r => r.id)
  t.equal(new Set(ids).size, ids.length, 'no record twice')
})
