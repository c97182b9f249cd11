import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {git, makeRepo, tempDir} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'
import {prepare, recordDigest, schemaTag, type Kind, type RecordDraft} from '../../src/records/index.js'

/**
 * Attacks on a research contract through records: another lane (or anyone who can push
 * lanes, or merge by hand) writes verdicts, decisions, baselines, hypotheses and trailers
 * that claim what exp never measured or decided. None of them may move a view, a promotion or
 * main, and fsck names them. (The attacks of code the evaluator runs are in attacks.test.ts,
 * those of a research agent's moves in attacks-research.test.ts.)
 */

t.test('records forged on a lane — a verdict that claims a score never measured, an accept never given — fool neither attempt list nor fsck', async t => {
  const repo = await quadFixture(t)
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": -3, "y": 2}\n')
  const dev = await expJson<{verdicts: {id: string; body: Record<string, unknown> & {metric: {value: number}}}[]; summary: {mean: number}}>(['attempt', 'eval', a.id], {cwd: repo})
  const real = dev.verdicts[0]!
  const forged = {...real.body, outcome: 'positive', metric: {...real.body.metric, value: 1000}, baseline: {value: -5, gain: 1005}}
  const v = await exp(['append', 'verdict', '-', '--lane', 'evil', '--key', 'forged/verdict'], {cwd: repo, input: JSON.stringify({body: forged, cites: [real.body.observation]})})
  t.equal(v.code, 0, v.stderr)
  const contract = (real.body.contract as {digest: string}).digest
  const decision = {proposal: a.id, verdict: 'accept', policy: {version: 'contract@2', digest: contract}, evaluations: [v.stdout.trim()], checks: [], reasons: ['trust me'], regressions: []}
  const d = await exp(['append', 'decision', '-', '--lane', 'evil'], {cwd: repo, input: JSON.stringify({body: decision, cites: [a.id]})})
  t.equal(d.code, 0, d.stderr)
  const list = await exp(['attempt', 'list', '--json'], {cwd: repo})
  t.equal(list.code, 0, list.stderr)
  const view = (JSON.parse(list.stdout) as {id: string; state: string; splits: {dev?: {mean?: number}}}[]).find(x => x.id === a.id)!
  t.equal(view.state, 'evaluated', 'not accepted on a forged decision')
  t.equal(view.splits.dev!.mean, dev.summary.mean, 'the measured mean, not the forged one')
  t.match(list.stderr, /2 evaluation\(s\) or decision\(s\) do not stand/)
  const fsck = await exp(['fsck', '--json'], {cwd: repo})
  t.not(fsck.code, 0)
  t.match(fsck.stdout, /inconsistent_evaluation/)
  t.match(fsck.stdout, /forged_decision/)
})

t.test("a baseline another lane planted under the baseline's public keys (scoring -10) makes no attempt better: a lane reuses and rests on its own measurements", async t => {
  const repo = await quadFixture(t)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  // the attacker measures the baseline at main in a copy of the repository (same commits, same keys), then lowers every score
  const scout = path.join(tempDir(t), 'scout')
  fs.cpSync(repo, scout, {recursive: true})
  const s0 = await expJson<{id: string}>(['attempt', 'new', 'quad', '--lane', 'scout'], {cwd: scout})
  for (const split of ['dev', 'holdout']) t.equal((await exp(['attempt', 'eval', s0.id, '--split', split, '--lane', 'scout'], {cwd: scout})).code, 0)
  const ledger = JSON.parse((await exp(['ledger', '--json'], {cwd: scout})).stdout) as {kind: Kind; id: string; key?: string; body: Record<string, unknown> & {attempt?: string; metrics?: Record<string, number>; metric?: {value: number}; verified_metrics?: Record<string, number>; observation?: string; observation_digest?: string}; cites: string[]}[]
  const base = ledger.find(r => r.kind === 'attempt' && r.key!.startsWith('baseline/'))!
  const forged: object[] = [{kind: 'attempt', key: base.key, body: base.body, cites: base.cites}]
  const digests = new Map<string, string>()
  for (const r of ledger.filter(r => r.kind === 'observation' && r.body.attempt === base.id)) {
    const body = structuredClone(r.body)
    body.metrics!.score = -10
    const d = {kind: 'observation' as const, key: r.key, body, cites: r.cites}
    digests.set(r.id, recordDigest({...d, schema: schemaTag('observation')}))
    forged.push(d)
  }
  for (const r of ledger.filter(r => r.kind === 'verdict' && r.body.attempt === base.id)) {
    const body = structuredClone(r.body)
    body.metric!.value = -10
    if (body.verified_metrics) body.verified_metrics.score = -10
    body.observation_digest = digests.get(body.observation!)
    forged.push({kind: 'verdict', key: r.key, body, cites: r.cites})
  }
  t.equal(forged.length, 1 + 2 * digests.size, 'the baseline, and an observation and a verdict per repetition of both splits')
  const file = path.join(repo, '.git', 'forged.jsonl')
  fs.writeFileSync(file, forged.map(f => JSON.stringify(f)).join('\n') + '\n')
  const planted = await exp(['append', '--batch', file, '--lane', 'mallory'], {cwd: repo})
  t.equal(planted.code, 0, planted.stderr)

  // alice opens an attempt, changes nothing, and asks for its promotion
  const a = await expJson<{id: string}>(['attempt', 'new', 'quad', '--lane', 'alice'], {cwd: repo})
  const ho = await expJson<{verdicts: {id: string}[]; baseline: {verdicts: {id: string}[]}}>(['attempt', 'eval', a.id, '--split', 'holdout', '--lane', 'alice'], {cwd: repo})
  const r = await expJson<{verdict: string; checks: {name: string; passed: boolean; detail: string}[]}>(['attempt', 'promote', a.id, '--lane', 'alice'], {cwd: repo})
  t.equal(r.verdict, 'reject', 'measured against its own baseline, changing nothing is no improvement')
  t.match(r.checks.find(c => c.name === 'dev improves')?.detail, /neutral/)
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'main did not move')
  const mallory = new Set(forged.map(f => prepare(f as RecordDraft).id))
  t.notOk(ho.baseline.verdicts.some(v => mallory.has(v.id)), "alice's evaluation reused none of the planted verdicts")

  // an accept resting on the planted baseline (written by hand on alice's lane) does not stand
  const all = JSON.parse((await exp(['ledger', '--json'], {cwd: repo})).stdout) as {kind: string; id: string; lane: string; body: {attempt?: string; split?: string; contract?: {digest: string}}}[]
  const mine = all.filter(x => x.kind === 'verdict' && x.body.attempt === a.id).map(x => x.id)
  const theirs = all.filter(x => x.kind === 'verdict' && x.lane === 'mallory').map(x => x.id)
  const digest = all.find(x => x.kind === 'verdict' && x.body.attempt === a.id)!.body.contract!.digest
  const blob = (await git(repo, 'rev-parse', 'main:.research/contracts/quad.yaml')).trim()
  const decision = {proposal: a.id, verdict: 'accept', policy: {version: 'contract@2', digest, path: '.research/contracts/quad.yaml', blob}, evaluations: [...mine, ...theirs], checks: [], reasons: ['-10 -> better'], regressions: []}
  t.equal((await exp(['append', 'decision', '-', '--lane', 'alice'], {cwd: repo, input: JSON.stringify({body: decision, cites: [a.id, ...mine, ...theirs]})})).code, 0)
  const fsck = await exp(['fsck', '--json'], {cwd: repo})
  t.not(fsck.code, 0)
  t.match(fsck.stdout, /forged_decision[^\n]*rests on verdict vd-[0-9a-f]+ of lane mallory: a decision rests on the measurements of its own lane/)
})

t.test("a lane that planted other records under the baseline's key and under its key salted with a lane's name refuses that lane no evaluation", async t => {
  const repo = await quadFixture(t)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  const key = `baseline/quad/${main}`
  const body = {contract: {name: 'quad', digest: `sha256:${'0'.repeat(64)}`}, branch: 'main', base: {commit: main, branch: 'main'}, ordinal: 0, reason: 'planted'}
  const file = path.join(repo, '.git', 'planted.jsonl')
  fs.writeFileSync(file, [key, `${key}@alice`].map(k => JSON.stringify({kind: 'attempt', key: k, body, cites: []})).join('\n') + '\n')
  const planted = await exp(['append', '--batch', file, '--lane', 'mallory'], {cwd: repo})
  t.equal(planted.code, 0, planted.stderr)
  const a = await expJson<{id: string}>(['attempt', 'new', 'quad', '--lane', 'alice'], {cwd: repo})
  const ev = await exp(['attempt', 'eval', a.id, '--split', 'dev', '--lane', 'alice', '--json'], {cwd: repo})
  t.equal(ev.code, 0, `E_CONFLICT before: ${ev.stderr}`)
  const baseline = (JSON.parse(ev.stdout) as {baseline: {attempt: string}}).baseline.attempt
  const rec = (await expJson<{id: string; key?: string; lane: string}[]>(['ledger', '--kind', 'attempt'], {cwd: repo})).find(r => r.id === baseline)!
  t.equal(rec.key, `${key}@alice#2`, 'the first key no other lane holds')
  t.equal(rec.lane, 'alice')
})

t.test('two clones that measured the same baseline alike and synced: each lane\'s accept still stands on its own copy', async t => {
  const a = await quadFixture(t)
  const b = path.join(tempDir(t), 'b')
  fs.cpSync(a, b, {recursive: true})
  // lane a measures the baseline at main in clone a; lane b, in clone b, measures it too and promotes an attempt
  const x = await expJson<{id: string}>(['attempt', 'new', 'quad', '--lane', 'a'], {cwd: a})
  t.equal((await exp(['attempt', 'eval', x.id, '--lane', 'a'], {cwd: a})).code, 0)
  const y = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad', '--lane', 'b'], {cwd: b})
  fs.writeFileSync(path.join(y.path, 'params.json'), '{"x": 4, "y": 2}\n')
  const r = await expJson<{verdict: string}>(['attempt', 'promote', y.id, '--lane', 'b'], {cwd: b})
  t.equal(r.verdict, 'accept')
  // clone a takes clone b's lane and main: the baseline's records are in both lanes, byte for byte
  await git(a, 'fetch', '-q', b, '+refs/research/lanes/b:refs/research/lanes/b', '+main:refs/heads/from-b')
  const ledger = JSON.parse((await exp(['ledger', '--json'], {cwd: a})).stdout) as {id: string; lane: string}[]
  t.ok(ledger.some(e => e.lane === 'b'))
  const fsck = await exp(['fsck', '--json', '--main', 'from-b'], {cwd: a})
  t.equal(fsck.code, 0, `the accept stands: ${fsck.stdout.slice(0, 600)}`)
})

// Found by an attack sweep: another lane copied each dev run of an honest lane's rejected
// attempt with another score, under keys of its own, and wrote the verdict the contract gives
// for each: they re-derived, so the hypothesis read supported (on the frontier as a candidate for
// promotion), `exp attempt list` showed the copies' mean, and fsck said nothing. The same
// copies scored low turned a good attempt's hypothesis contradicted.
t.test("another lane's verdicts of an attempt, on copies of its runs with other scores, move no view; fsck names them, and that lane cannot evaluate it", async t => {
  const repo = await quadFixture(t)
  const {judgeObservation} = await import('../../src/evals/evaluator/command.js')
  const {parseContract} = await import('../../src/contracts/load.js')
  const blob = (await git(repo, 'rev-parse', 'main:.research/contracts/quad.yaml')).trim()
  const contract = parseContract(await git(repo, 'show', 'main:.research/contracts/quad.yaml'), '.research/contracts/quad.yaml', blob).contract!
  const hypothesis = async (statement: string) => (await exp(['append', 'hypothesis', '-', '--lane', 'alice'], {cwd: repo, input: JSON.stringify({statement, mechanism: 'closer to the optimum', expected_effect: {metric: 'score', direction: 'increase'}, conditions: [], mechanism_family: 'quad'})})).stdout.trim()
  // alice: attempt a is worse than main (rejected), attempt b better (evaluated, not decided yet)
  const [ha, hb] = [await hypothesis('x = -3 is better'), await hypothesis('x = 4, y = 2 is better')]
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad', '--hypothesis', ha, '--lane', 'alice'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": -3, "y": 2}\n')
  t.equal((await expJson<{verdict: string}>(['attempt', 'promote', a.id, '--lane', 'alice'], {cwd: repo})).verdict, 'reject')
  const b = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad', '--hypothesis', hb, '--lane', 'alice'], {cwd: repo})
  fs.writeFileSync(path.join(b.path, 'params.json'), '{"x": 4, "y": 2}\n')
  t.equal((await exp(['attempt', 'eval', b.id, '--lane', 'alice'], {cwd: repo})).code, 0)
  const views = async () => ({
    list: await expJson<{id: string; lane: string; state: string; splits: {dev?: {mean?: number; outcomes: Record<string, number>}}}[]>(['attempt', 'list'], {cwd: repo}),
    hypotheses: Object.fromEntries((await expJson<{id: string; status: string}[]>(['hypotheses'], {cwd: repo})).map(h => [h.id, h.status])),
    frontier: await expJson<{promotion_candidates: unknown[]}>(['frontier', '--agent-id', 'someone'], {cwd: repo}),
  })
  const before = await views()
  t.match(before.hypotheses, {[ha]: 'contradicted', [hb]: 'supported'})
  // mallory: a copy of each of alice's dev runs, a scored 0 (the optimum) and b -1000, and the verdicts the contract gives them
  const ledger = await expJson<{kind: string; id: string; key?: string; lane: string; body: Record<string, unknown> & {attempt?: string; split?: string; metrics?: Record<string, number>; baseline?: {value: number; verdict?: string}}; cites: string[]}[]>(['ledger'], {cwd: repo})
  const forged: RecordDraft[] = []
  for (const [attempt, score] of [[a.id, 0], [b.id, -1000]] as const) {
    for (const v of ledger.filter(r => r.kind === 'verdict' && r.body.attempt === attempt && r.body.split === 'dev')) {
      const o = ledger.find(r => r.id === v.body.observation)!
      const body = {...structuredClone(o.body), metrics: {...o.body.metrics, score}}
      const obs = {kind: 'observation', key: `${o.key}@mallory`, body, cites: o.cites} as unknown as RecordDraft
      const p = prepare(obs)
      const judged = judgeObservation(body as never, contract, v.body.baseline as {value: number; verdict?: string})
      const {valid: _v, outcome: _o, metric: _m, verified_metrics: _vm, violations: _vi, needs_retry: _n, baseline: _b, invalid_kind: _i, ...rest} = v.body
      forged.push(obs, {kind: 'verdict', key: `verdict/${p.id}`, body: {...rest, observation: p.id, observation_digest: p.digest, ...judged}, cites: v.cites.map(c => (c === o.id ? p.id : c))} as unknown as RecordDraft)
    }
  }
  t.equal(forged.length, 8, 'an observation and a verdict for each of two repetitions of two attempts')
  const file = path.join(repo, '.git', 'forged.jsonl')
  fs.writeFileSync(file, forged.map(f => JSON.stringify(f)).join('\n') + '\n')
  const planted = await exp(['append', '--batch', file, '--lane', 'mallory'], {cwd: repo})
  t.equal(planted.code, 0, planted.stderr)
  const after = await views()
  t.same(after.hypotheses, before.hypotheses, 'a stays contradicted, b supported')
  t.same(after.frontier.promotion_candidates, before.frontier.promotion_candidates, 'no other candidate for promotion')
  for (const id of [a.id, b.id]) t.same(after.list.find(x => x.id === id), before.list.find(x => x.id === id), `${id}: its own mean and outcomes`)
  const fsck = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(fsck.code, 5, fsck.stderr)
  const problems = (JSON.parse(fsck.stdout) as {error: {data: {problems: {code: string; ref: string; message: string}[]}}}).error.data.problems
  t.equal(problems.length, 4, problems.map(p => p.message).join('\n'))
  for (const p of problems) {
    t.match(p, {code: 'foreign_measurement', ref: 'refs/research/lanes/mallory'})
    t.match(p.message, new RegExp(`^foreign_measurement: vd-[0-9a-f]{24}: it is lane mallory's, a measurement of attempt (${a.id}|${b.id}) of lane alice`))
  }
  // nor can mallory measure it with exp: what it recorded would count for nothing
  const ev = await exp(['attempt', 'eval', b.id, '--lane', 'mallory'], {cwd: repo})
  t.equal(ev.code, 5, ev.stderr)
  t.match(ev.stderr, new RegExp(`attempt ${b.id} is lane alice's, not lane mallory's`))
})

t.test('a hypothesis another lane recorded first under a move\'s key, in other words, makes the research loop try another move, not fail', async t => {
  const repo = await quadFixture(t)
  // the move the search agent makes first, and its key, learned in a copy
  const scout = path.join(tempDir(t), 'scout')
  fs.cpSync(repo, scout, {recursive: true})
  t.equal((await exp(['research', 'quad', '--agent', 'search', '--attempts', '1', '--lane', 'scout'], {cwd: scout})).code, 0)
  const first = (JSON.parse((await exp(['ledger', '--kind', 'hypothesis', '--json'], {cwd: scout})).stdout) as {key: string; body: Record<string, unknown>}[])[0]!
  const planted = await exp(['append', 'hypothesis', '-', '--lane', 'mallory', '--key', first.key], {cwd: repo, input: JSON.stringify({...first.body, statement: 'planted'})})
  t.equal(planted.code, 0, planted.stderr)
  const r = await exp(['research', 'quad', '--agent', 'search', '--attempts', '1', '--lane', 'alice'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout + r.stderr, /lane mallory recorded this move on this main first, in other words; another move/)
  const hyps = JSON.parse((await exp(['ledger', '--kind', 'hypothesis', '--lane', 'alice', '--json'], {cwd: repo})).stdout) as {key: string}[]
  t.equal(hyps.length, 1, 'alice recorded another move')
  t.not(hyps[0]!.key, first.key)
})

t.test("whose attempt it is does not change with a copy of its record another lane puts first in ledger order", async t => {
  const {Ledger} = await import('../../src/store/index.js')
  const {attemptId, attemptKey, attemptLane, ownMeasurement} = await import('../../src/attempts/keys.js')
  const id = attemptId(attemptKey('quad', 'alice', 1))
  const entry = (kind: 'attempt' | 'verdict', lane: string, lamport: number, rid = id, digest = 'sha256:a') => ({id: rid, kind, digest, lane, ref: `refs/research/lanes/${lane}`, private: false, lamport, commit: `${lamport}`.padStart(40, '0'), cites: []})
  // mallory's copy of alice's attempt (the same bytes) at Lamport 1, and a verdict of it from each lane
  const ledger = new Ledger([entry('attempt', 'mallory', 1), entry('attempt', 'alice', 5), entry('verdict', 'alice', 6, 'vd-a', 'sha256:b'), entry('verdict', 'mallory', 7, 'vd-m', 'sha256:c')], () => {
    throw new Error('no body is read')
  })
  const first = ledger.get(id)!
  t.equal(first.lane, 'mallory', 'the copy is first in ledger order')
  t.equal(attemptLane(ledger, first, {contract: 'quad', ordinal: 1}), 'alice', 'the lane its key names')
  t.ok(ownMeasurement(ledger, ledger.get('vd-a')!, first, {contract: 'quad', ordinal: 1}))
  t.notOk(ownMeasurement(ledger, ledger.get('vd-m')!, first, {contract: 'quad', ordinal: 1}))
  t.ok(ownMeasurement(ledger, ledger.get('vd-m')!, first, {contract: 'quad', ordinal: 0}), 'a baseline is measured by every lane, for its own attempts')
})

t.test('which branches an attempt or a proposal record may name as its own', async t => {
  const {ownProposalBranch} = await import('../../src/loop/proposal-scope.js')
  const id = 'pr-0123456789abcdef01234567'
  t.ok(ownProposalBranch(id, `exp/proposal/${id}`))
  t.ok(ownProposalBranch(id, `exp/proposal/matrix/a/${id}`), 'an experiment namespace')
  const {assertOwnAttempt} = await import('../../src/attempts/keys.js')
  const at = 'at-0123456789abcdef01234567'
  t.doesNotThrow(() => assertOwnAttempt(at, {branch: `exp/attempt/${at}`, ordinal: 3}))
  t.doesNotThrow(() => assertOwnAttempt(at, {branch: 'gate/abc', ordinal: 0, head: {commit: 'a'.repeat(40)}}), 'the gate and baselines own no branch')
  t.throws(() => assertOwnAttempt(at, {branch: `exp/attempt/${at}`, ordinal: 1, head: {commit: 'a'.repeat(40)}}), /names a fixed head commit/)
  t.throws(() => assertOwnAttempt(at, {branch: 'master', ordinal: 1}), /names branch "master"/)
  for (const b of ['main', 'master', `refs/heads/main`, `exp/proposal/x${id}`, `exp/proposal/../../main/${id}`, `exp/proposal//${id}`, `main/exp/proposal/${id}`, `exp/proposal/a b/${id}`]) t.notOk(ownProposalBranch(id, b), b)
})

for (const main of ['main', 'master']) {
  t.test(`${main}: a merge pushed by hand that names a standing accept of another commit is not a promotion`, async t => {
    const repo = await quadFixture(t)
    if (main === 'master') await git(repo, 'branch', '-m', 'main', 'master')
    const a = await expJson<{id: string; path: string; branch: string}>(['attempt', 'new', 'quad'], {cwd: repo})
    fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": 4, "y": 2}\n')
    const dev = await expJson<{verdicts: {id: string; body: {contract: {digest: string}}}[]; baseline: {verdicts: {id: string}[]}}>(['attempt', 'eval', a.id], {cwd: repo})
    const ho = await expJson<{verdicts: {id: string}[]; baseline: {verdicts: {id: string}[]}}>(['attempt', 'eval', a.id, '--split', 'holdout'], {cwd: repo})
    const evidence = [...dev.verdicts, ...dev.baseline.verdicts, ...ho.verdicts, ...ho.baseline.verdicts].map(v => v.id)
    const digest = dev.verdicts[0]!.body.contract.digest
    // someone with push access merges a commit nobody evaluated, with the trailers of a promotion
    await git(repo, 'checkout', '-q', '-b', 'unevaluated', main)
    fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 100, "y": 2}\n')
    await git(repo, 'commit', '-qam', 'params: never evaluated')
    await git(repo, 'checkout', '-q', main)
    await git(repo, 'merge', '--no-ff', '-q', 'unevaluated', '-m', `exp: promote quad attempt #1 (${a.id})\n\nExp-Promotes: ${a.id}\nExp-Evidence: ${evidence.join(' ')}\nExp-Policy: contract@2 ${digest}`)
    const merge = (await git(repo, 'rev-parse', 'HEAD')).trim()
    const blob = (await git(repo, 'rev-parse', `${main}:.research/contracts/quad.yaml`)).trim()
    const decision = {proposal: a.id, verdict: 'accept', policy: {version: 'contract@2', digest, path: '.research/contracts/quad.yaml', blob}, evaluations: evidence, checks: [], reasons: ['the real verdicts of another commit'], regressions: [], merge: {commit: merge, branch: a.branch}}
    // (on the lane whose verdicts it cites: from another lane it would not stand for that alone)
    const d = await exp(['append', 'decision', '-'], {cwd: repo, input: JSON.stringify({body: decision, cites: [a.id, ...evidence]})})
    t.equal(d.code, 0, d.stderr)
    const fsck = await exp(['fsck', '--json'], {cwd: repo})
    t.not(fsck.code, 0, 'fsck fails')
    const problems = (JSON.parse(fsck.stdout) as {error: {data: {problems: {class?: string; commit?: string; message: string}[]}}}).error.data.problems
    t.match(problems.find(p => p.class === 'unverified_promotion'), {commit: merge, message: /verdicts judged/})
  })
}

/** A contract whose score depends on the run's seed (EXP_SEED): a run at another seed measures other episodes. */
async function seededContract(t: {teardown(fn: () => void): void}): Promise<string> {
  const repo = await makeRepo(t)
  expect0(await exp(['init'], {cwd: repo}))
  fs.writeFileSync(path.join(repo, 'eval.mjs'), `import fs from 'node:fs'\nconst p = JSON.parse(fs.readFileSync('params.json', 'utf8'))\nconst s = Number(process.env.EXP_SEED)\nfs.writeFileSync('metrics.json', JSON.stringify({score: p.x + ((s * s * 13) % 10)}))\n`)
  fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 1}\n')
  fs.writeFileSync(path.join(repo, '.research/contracts/c.yaml'), `version: 2\nname: c\nobjective: raise x\neditable_scope: [params.json]\nprotected_scope: [eval.mjs, .research/**]\nmetric: {name: score, direction: maximize, margin: 0.01}\ndev_eval: {command: node eval.mjs dev, timeout_seconds: 30, repetitions: 3, metrics_file: metrics.json}\nholdout_eval: {command: node eval.mjs holdout, timeout_seconds: 30, repetitions: 3, metrics_file: metrics.json}\nbudget: {max_attempts: 30, max_parallel_lanes: 3}\npromotion: {holdout_required: false, paired_alpha: 0.1}\n`)
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a contract whose evaluator depends on the seed')
  return repo
}

function expect0(r: {code: number; stderr: string}): void {
  if (r.code !== 0) throw new Error(r.stderr)
}

t.test('a baseline measured at another seed is not paired with an attempt: a change of nothing is not promoted, and a forged pairing does not stand', async t => {
  const repo = await seededContract(t)
  const main = (await git(repo, 'rev-parse', 'HEAD')).trim()
  // the lane's baseline recorded at seeds 50..52 (scores 1, 4, 3) by a throwaway attempt;
  // at the default seeds 42..44 the same files score 3, 8, 9
  const throwaway = await expJson<{id: string}>(['attempt', 'new', 'c'], {cwd: repo})
  await exp(['attempt', 'eval', throwaway.id, '--seed', '50'], {cwd: repo})
  const nothing = await expJson<{id: string}>(['attempt', 'new', 'c'], {cwd: repo})
  const pr = await exp(['attempt', 'promote', nothing.id, '--json'], {cwd: repo})
  const r = JSON.parse(pr.stdout) as {verdict: string; checks: {name: string; passed: boolean; detail: string}[]}
  t.equal(r.verdict, 'reject', `a change of nothing is not better than itself: ${JSON.stringify(r.checks)}`)
  t.equal((await git(repo, 'rev-parse', 'HEAD')).trim(), main, 'main did not move')
  t.equal((await exp(['fsck'], {cwd: repo})).code, 0, 'every verdict pairs runs of one seed')

  // a verdict that pairs a run at seed 42 with the baseline's run at seed 50 does not stand
  const verdicts = await expJson<{id: string; cites: string[]; body: Record<string, unknown> & {repetition: number; attempt: string; baseline?: {verdict?: string; value?: number}; split: string}}[]>(['ledger', '--kind', 'verdict'], {cwd: repo})
  const observations = await expJson<{id: string; body: {seed: number; attempt: string}}[]>(['ledger', '--kind', 'observation'], {cwd: repo})
  const seedOf = (v: {body: Record<string, unknown>}) => observations.find(o => o.id === v.body.observation)!.body.seed
  const mine = verdicts.find(v => v.body.attempt === nothing.id && v.body.repetition === 0 && v.body.baseline?.verdict)!
  const other = verdicts.find(v => v.body.attempt !== nothing.id && v.body.repetition === 0 && v.body.split === 'dev' && seedOf(v) === 50)!
  t.ok(mine && other, 'the fixture has both runs')
  const otherValue = (other.body as {metric?: {value: number}}).metric!.value
  const forged = {...mine.body, baseline: {...mine.body.baseline, verdict: other.id, value: otherValue}}
  const f = await exp(['append', 'verdict', '-', '--key', 'forged/pairing', '--cite', mine.cites[0]!, '--cite', other.id], {cwd: repo, input: JSON.stringify(forged)})
  t.equal(f.code, 0, f.stderr)
  const fsck = await exp(['fsck'], {cwd: repo})
  t.match(fsck.stdout + fsck.stderr, /a run at seed 50, not at its own seed 42/)
})
