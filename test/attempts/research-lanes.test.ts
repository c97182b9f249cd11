import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import os from 'node:os'
import {spawn} from 'node:child_process'
import {BIN, exp, expJson} from '../helpers/cli.js'
import {GIT_ENV, git, makeRepo, node} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'
import {GitRecordStore} from '../../src/store/index.js'
import type {AttemptBody, DecisionBody, ObservationBody} from '../../src/records/types.js'

type Result = {attempts: {id: string; ordinal: number; state: string}[]; promoted: number; rejected: number}

async function ledgerOf(repo: string) {
  const store = await GitRecordStore.open(repo)
  const ledger = await store.ledger()
  await store.close()
  const attempts = ledger.select({kinds: ['attempt']}).map(e => ({id: e.id, lane: e.lane, body: ledger.load<'attempt'>(e).body as AttemptBody})).filter(a => a.body.ordinal > 0)
  const decisions = ledger.select({kinds: ['decision']}).map(e => ledger.load<'decision'>(e).body as DecisionBody)
  const observations = ledger.select({kinds: ['observation']}).map(e => ({lane: e.lane, body: ledger.load<'observation'>(e).body as ObservationBody}))
  return {attempts, decisions, observations}
}

t.test('exp research killed at random moments and run again spends its budget once: no duplicate attempt, fsck clean', async t => {
  const repo = await quadFixture(t)
  const args = ['research', 'quad', '--agent', 'search', '--attempts', '5', '--lane', 'k']
  const delays: number[] = []
  for (let k = 0; k < 4; k++) {
    const child = spawn(...node([BIN, ...args]), {cwd: repo, env: GIT_ENV, stdio: 'ignore'})
    const closed = new Promise<number | null>(r => child.on('close', code => r(code)))
    const delay = 400 + Math.floor(Math.random() * 2500)
    delays.push(delay)
    const finished = await Promise.race([closed.then(() => true), new Promise(r => setTimeout(r, delay)).then(() => false)])
    if (finished) break
    child.kill('SIGKILL')
    await closed
  }
  const res = await expJson<Result>(args, {cwd: repo})
  const why = `kills after ${delays.join(', ')} ms`
  t.same(res.attempts.map(a => a.ordinal), [1, 2, 3, 4, 5], `five attempts, ordinals 1..5 (${why})`)
  const l = await ledgerOf(repo)
  t.equal(l.attempts.length, 5, 'five attempt records in all')
  t.equal(new Set(l.attempts.map(a => a.id)).size, 5, 'no duplicate ids')
  const decided = l.decisions.filter(d => d.proposal.startsWith('at-')).map(d => d.proposal)
  t.equal(new Set(decided).size, decided.length, 'no attempt decided twice')
  t.ok(res.promoted >= 1, `the search improved on main (${why}: ${JSON.stringify(res.attempts)})`)
  const again = await expJson<Result>(args, {cwd: repo})
  t.same(again.attempts.map(a => a.id), res.attempts.map(a => a.id), 'a rerun of a finished run adds nothing')
  // and says so, once an attempt: no verdict line replayed as if it ran again
  const said = await exp(args, {cwd: repo})
  t.equal(said.code, 0)
  t.equal(said.stderr.match(/: decided before \((accept|reject)/g)?.length, 5, said.stderr)
  t.notMatch(said.stderr, /dev (positive|negative|neutral)|REJECT|ACCEPT/)
  t.equal((await ledgerOf(repo)).attempts.length, 5)
  // (it failed once in CI, unreproduced: the problems and the kill moments are printed when it does)
  const fsck = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(fsck.code, 0, `exp fsck is clean (${why}): ${fsck.stdout.slice(0, 4000)}`)
})

t.test('two research lanes at once never evaluate the same attempt', async t => {
  const repo = await quadFixture(t)
  const lane = (name: string) => new Promise<{code: number | null; stderr: string}>(resolve => {
    const child = spawn(...node([BIN, 'research', 'quad', '--agent', 'search', '--attempts', '3', '--lane', name]), {cwd: repo, env: GIT_ENV, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr!.on('data', d => (stderr += d))
    child.on('close', code => resolve({code, stderr}))
  })
  const runs = await Promise.all([lane('a'), lane('b')])
  t.same(runs.map(r => r.code), [0, 0], runs.map(r => r.stderr.split('\n').slice(-4).join(' | ')).join(' || '))
  const l = await ledgerOf(repo)
  t.equal(l.attempts.length, 6)
  // one candidate is one state of the editable files on one base: no two lanes evaluated the same
  const seen = new Map<string, string>()
  let dup = 0
  for (const o of l.observations) {
    const a = l.attempts.find(x => x.id === o.body.attempt)
    if (!a || o.body.split !== 'dev' || o.body.repetition !== 0 || o.body.retry) continue
    const key = `${o.body.source.base}:${o.body.source.tree}`
    if (seen.has(key) && seen.get(key) !== a.id) dup++
    seen.set(key, a.id)
  }
  t.equal(dup, 0, `${seen.size} distinct candidates, none evaluated twice`)
  const fsck = await expJson<{problems: unknown[]}>(['fsck'], {cwd: repo})
  t.same(fsck.problems, [])
})

t.test("another lane's reject of a lane's undecided attempt, resting on nothing: the lane's research run decides it itself", async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  // held-out runs slowly while a marker file exists (under HOME, which an evaluator may read:
  // its environment holds none of the test's variables, and /tmp is hidden from it). An EXP_SLOW
  // variable was never passed: the test saw the attempt evaluated only when it polled in time
  const marks = fs.mkdtempSync(path.join(os.homedir(), '.exp-test-slow-'))
  t.teardown(() => fs.rmSync(marks, {recursive: true, force: true}))
  const slow = path.join(marks, 'on')
  fs.writeFileSync(slow, '')
  fs.writeFileSync(path.join(repo, 'eval.mjs'), `import fs from 'node:fs'\nconst p = JSON.parse(fs.readFileSync('params.json', 'utf8'))\nif (process.argv[2] === 'holdout' && fs.existsSync(${JSON.stringify(slow)})) await new Promise(r => setTimeout(r, 60000))\nfs.writeFileSync('metrics.json', JSON.stringify({score: p.x}))\n`)
  fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 1}\n')
  fs.writeFileSync(path.join(repo, '.research/contracts/c.yaml'), `version: 2\nname: c\nobjective: raise x\neditable_scope: [params.json]\nprotected_scope: [eval.mjs, .research/**]\nmetric: {name: score, direction: maximize, margin: 0.01}\ndev_eval: {command: node eval.mjs dev, timeout_seconds: 60, repetitions: 1, metrics_file: metrics.json}\nholdout_eval: {command: node eval.mjs holdout, timeout_seconds: 120, repetitions: 1, metrics_file: metrics.json}\nbudget: {max_attempts: 30, max_parallel_lanes: 3}\npromotion: {holdout_required: true, paired_alpha: 0.1}\n`)
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'contract')
  const args = ['research', 'c', '--agent', 'search', '--attempts', '1', '--lane', 'a']
  // the first run is killed once its attempt is evaluated on dev (held-out is running)
  const child = spawn(...node([BIN, ...args]), {cwd: repo, env: GIT_ENV, stdio: 'ignore'})
  const closed = new Promise(r => child.on('close', r))
  let attempt: string | undefined
  for (let i = 0; i < 600 && !attempt; i++) {
    await new Promise(r => setTimeout(r, 200))
    const l = await exp(['attempt', 'list', '--json'], {cwd: repo})
    attempt = l.code === 0 ? (JSON.parse(l.stdout) as {id: string; state: string}[]).find(a => a.state === 'evaluated')?.id : undefined
  }
  child.kill('SIGKILL')
  await closed
  fs.rmSync(slow)
  t.ok(attempt, 'the attempt was evaluated on dev before the kill')
  const reject = {proposal: attempt, verdict: 'reject', policy: {version: 'contract@2', digest: `sha256:${'0'.repeat(64)}`, path: '.research/contracts/c.yaml'}, evaluations: [], checks: [{name: 'dev improves', passed: false, detail: 'no'}], reasons: ['no'], regressions: []}
  const f = await exp(['append', 'decision', '-', '--lane', 'b', '--cite', attempt!], {cwd: repo, input: JSON.stringify(reject)})
  t.equal(f.code, 0, f.stderr)
  const r = await expJson<Result>(args, {cwd: repo})
  t.equal(r.promoted, 1, `the lane decided its attempt itself: ${JSON.stringify(r)}`)
  t.equal(r.rejected, 0)
  t.match(r.attempts, [{id: attempt, state: 'accepted'}])
  t.match(await git(repo, 'log', '-1', '--format=%B', 'main'), new RegExp(`Exp-Promotes: ${attempt}`), 'and promoted it')
})
