import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson, ROOT} from '../helpers/cli.js'
import {git, makeRepo, tempDir} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'
import {GitRecordStore} from '../../src/store/index.js'
import {detectIsolation} from '../../src/agents/command/sandbox.js'

// the four tests share nothing (each its own repository) and most of their time is the example's
// evaluator sleeping to model an expensive run: run side by side
t.jobs = 4

type Research = {attempts: {id: string; ordinal: number; state: string; holdout?: number}[]; promoted: number; rejected: number; resumed: number}

t.test('the tuning example end to end from git init on master: search raises held-out, rejects, resumes a timeout', async t => {
  const dir = tempDir(t)
  await git(dir, 'init', '-q')
  await git(dir, 'config', 'user.name', 'exp test')
  await git(dir, 'config', 'user.email', 'test@exp.invalid')
  t.match(await git(dir, 'symbolic-ref', 'HEAD'), /refs\/heads\/master/, 'stock git: master')
  const init = await exp(['init', '--example', 'tuning'], {cwd: dir})
  t.equal(init.code, 0, init.stderr)
  t.notOk(fs.existsSync(path.join(dir, 'data', 'holdout.json')), 'the held-out distribution is sealed')
  t.equal((await exp(['contract', 'lint'], {cwd: dir})).code, 0)
  const r = await expJson<Research>(['research', 'tuning', '--agent', 'search', '--attempts', '3'], {cwd: dir})
  t.equal(r.attempts.length, 3)
  t.ok(r.promoted >= 1, 'at least one promotion')
  t.ok(r.rejected >= 1, 'at least one rejected attempt kept')
  t.ok(r.resumed >= 1, 'a needs_retry attempt was resumed')
  const store = await GitRecordStore.open(dir)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const obs = ledger.select({kinds: ['observation']}).map(e => ledger.load<'observation'>(e).body)
  t.ok(obs.some(o => o.timed_out && !o.retry), 'a run timed out')
  t.ok(obs.some(o => o.retry === 1 && !o.timed_out && o.metrics), 'and was resumed and scored')
  const decision = ledger.select({kinds: ['decision']}).map(e => ledger.load<'decision'>(e).body).find(d => d.verdict === 'accept')!
  const m = /held-out improves: positive: score (-?[\d.]+) -> (-?[\d.]+)/.exec(decision.reasons.join('\n'))
  t.ok(m && Number(m[2]) > Number(m[1]), `the held-out score rose over the baseline (${m?.[1]} -> ${m?.[2]})`)
  t.equal((await git(dir, 'rev-parse', 'master')).trim(), decision.merge!.commit, 'the promotion is a merge on master')
  const fsck = await expJson<{problems: unknown[]}>(['fsck'], {cwd: dir})
  t.same(fsck.problems, [])
})

// Found by red-teaming: the example's contract said `baseline: {revision: main}`, resolved when
// it runs — on a master repository a stale branch called main became the baseline, and an
// attempt that changed nothing "improved" on it and was merged.
t.test('the tuning example on master with a stale branch called main: an attempt that changes nothing is not promoted', async t => {
  const dir = tempDir(t)
  await git(dir, 'init', '-q', '-b', 'master')
  await git(dir, 'config', 'user.name', 'exp test')
  await git(dir, 'config', 'user.email', 'test@exp.invalid')
  t.equal((await exp(['init', '--example', 'tuning'], {cwd: dir})).code, 0)
  await git(dir, 'checkout', '-q', '-b', 'main')
  fs.writeFileSync(path.join(dir, 'params.json'), JSON.stringify({n_lists: 64, n_probe: 1, kmeans_iters: 2}, null, 2))
  await git(dir, 'commit', '-qam', 'some old branch')
  await git(dir, 'checkout', '-q', 'master')
  const a = await expJson<{id: string}>(['attempt', 'new', 'tuning'], {cwd: dir})
  const d = await expJson<{verdict: string}>(['attempt', 'promote', a.id], {cwd: dir})
  t.equal(d.verdict, 'reject', 'measured against its own base, changing nothing is no improvement')
  t.match(await git(dir, 'log', '-1', '--format=%s', 'master'), /^exp: add the tuning example/, 'master did not move')
})

t.test('the tuning example by hand on main: attempt new, eval, promote', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init', '--example', 'tuning'], {cwd: repo})).code, 0)
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'tuning'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'params.json'), JSON.stringify({n_lists: 8, n_probe: 1, kmeans_iters: 16}))
  const d = await expJson<{verdict: string; holdout?: {outcome: string}}>(['attempt', 'promote', a.id], {cwd: repo})
  t.match(d, {verdict: 'accept', holdout: {outcome: 'positive'}})
  t.match(fs.readFileSync(path.join(repo, 'params.json'), 'utf8'), /"kmeans_iters":16/)
})

t.test('a command research agent sees no evaluator-only data, no key and nothing of the repository', async t => {
  const repo = await quadFixture(t)
  const r = await expJson<Research>(['research', 'quad', '--agent', `command:python3 ${path.join(ROOT, 'test/fixtures/agents/snoop-researcher.py')}`, '--attempts', '1'], {cwd: repo, env: {EXP_HOLDOUT_KEY_FILE: path.join(repo, '.git', 'exp', 'holdout.key')}})
  t.equal(r.attempts.length, 1)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const reason = ledger.load<'attempt'>(ledger.get(r.attempts[0]!.id)!).body.reason!
  t.notMatch(reason, /TOP-SECRET/, 'the secret was not read')
  t.match(reason, /env \{\}/, 'no key or private folder in its environment')
  if ((await detectIsolation()) !== 'none') t.match(reason, /^found \[\]/, `nothing found at all: ${reason.slice(0, 200)}`)
})

t.test('provenance of a contract, the graph and the frontier read attempts like proposals', async t => {
  const repo = await quadFixture(t)
  const r = await expJson<Research>(['research', 'quad', '--agent', 'search', '--attempts', '3', '--lane', 'p'], {cwd: repo})
  t.ok(r.promoted >= 1)
  const prov = await exp(['provenance', 'quad'], {cwd: repo})
  t.equal(prov.code, 0, prov.stderr)
  t.match(prov.stdout, /^contract quad on main [0-9a-f]+ is v\d/)
  t.match(prov.stdout, /v2 {2}promoted by merge [0-9a-f]+ \(at-[0-9a-f]+\)\n {2}attempt #\d on lane p: \S+: \S+ -> \S+/)
  t.match(prov.stdout, /dev -?[\d.]+ -> -?[\d.]+; held-out -?[\d.]+ -> -?[\d.]+/)
  const pj = await expJson<{contract: string; versions: {origin: string; decision?: {verdict: string}}[]}>(['provenance', 'quad'], {cwd: repo})
  t.match(pj.versions[1], {origin: 'promotion', decision: {verdict: 'accept'}})
  const graph = await exp(['graph', '--format', 'mermaid'], {cwd: repo})
  t.match(graph.stdout, /attempt quad #1/)
  const blame = await expJson<{lines: {origin: string; attempt?: string; merge?: string; decision?: string}[]}>(['blame', 'quad', 'params.json'], {cwd: repo})
  t.ok(blame.lines.some(l => l.origin === 'attempt' && /^at-/.test(l.attempt!) && l.merge && /^dc-/.test(l.decision!)), 'a line of params.json leads to its attempt, merge and decision')
  // the attack: a line pushed straight to main, its message naming the accepted attempt
  const accepted = blame.lines.find(l => l.origin === 'attempt')!.attempt!
  const params = path.join(repo, 'params.json')
  fs.writeFileSync(params, fs.readFileSync(params, 'utf8').replace(/\n\}\s*$/, ',\n  "unjudged": 1\n}\n'))
  await git(repo, 'commit', '-qam', `tweak\n\nExp-Attempt: ${accepted}`)
  const forged = await expJson<{lines: {text: string; origin: string; attempt?: string; merge?: string; decision?: string}[]}>(['blame', 'quad', 'params.json'], {cwd: repo})
  t.match(forged.lines.find(l => l.text.includes('unjudged')), {origin: 'edit'}, 'a line nothing judged is an edit, whatever its commit message says')
  t.notOk(forged.lines.find(l => l.text.includes('unjudged'))!.attempt)
  t.ok(forged.lines.some(l => l.origin === 'attempt' && l.attempt === accepted), 'the promoted lines still lead to their attempt')
  const out = path.join(repo, '.git', 'report')
  const report = await expJson<{contracts?: {contract: string; versions: unknown[]}[]}>(['report', '--out', out], {cwd: repo})
  t.match(report.contracts, [{contract: 'quad'}])
  t.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /## Contract quad\n\nv\d on main; \d+ promotion\(s\)/)
  t.match(fs.readFileSync(path.join(out, 'report.html'), 'utf8'), /<h2>Contract quad<\/h2>/)
})

// Found by a new user: research on the lane of an attempt opened by hand took it for its own #1,
// evaluated and decided it with the person's edit half made, and left its --path work tree on a
// branch a reject had deleted.
t.test('exp research passes over an attempt a person opened on its lane, and leaves it to them', async t => {
  const repo = await quadFixture(t)
  const dir = path.join(tempDir(t), 'try1')
  const hand = await expJson<{id: string; ordinal: number; branch: string}>(['attempt', 'new', 'quad', '--lane', 'p', '--path', dir], {cwd: repo})
  t.equal(hand.ordinal, 1)
  fs.writeFileSync(path.join(dir, 'params.json'), '{"x": 3, "y": 2}\n')
  const r = await exp(['research', 'quad', '--agent', 'search', '--attempts', '1', '--lane', 'p', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  const out = JSON.parse(r.stdout) as Research
  t.match(r.stderr, new RegExp(`#1 ${hand.id}: opened by hand \\(exp attempt new\\): left to you, passed over`))
  const mine = out.attempts.find(a => a.id === hand.id)!
  t.notOk(['accepted', 'rejected'].includes(mine.state), `the person's attempt is not decided (${mine.state})`)
  t.ok(out.attempts.some(a => a.ordinal === 2 && a.id !== hand.id), 'research made its one attempt as #2')
  t.match(await git(repo, 'for-each-ref', `refs/heads/${hand.branch}`), hand.branch, 'the person\'s branch is still there')
  t.equal(fs.readFileSync(path.join(dir, 'params.json'), 'utf8'), '{"x": 3, "y": 2}\n', 'and their edit')
})
