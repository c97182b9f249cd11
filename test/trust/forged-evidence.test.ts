import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {BAD} from '../helpers/promotions.js'
import {pendingProposal} from '../helpers/trust.js'
import {git} from '../helpers/repo.js'
import {hypotheses} from '../../src/projections/index.js'
import type {EvaluationBody} from '../../src/records/types.js'

// Attack 1 of docs/trust.md: another lane appends evaluations with better numbers.

t.test('a forged evaluation on another lane does not promote a proposal its real evaluation rejects', async t => {
  const p = await pendingProposal(t, BAD)
  t.ok(p.rates.candidate <= p.rates.baseline, `the real evaluation does not improve (${p.rates.baseline} -> ${p.rates.candidate})`)
  const ledger = await p.store.ledger()
  const real = ledger.load<'evaluation'>(ledger.get(p.candidate)!).body as EvaluationBody
  // the attacker copies the real body, raises the numbers and cites nothing
  const forged: EvaluationBody = {...real, passed: real.total, failed: 0, success_rate: 1, ci: [0.806, 1], comparison: {...real.comparison!, wins: 8, losses: 0, ties: 8, diff: 0.5, regressions: []}}
  const file = path.join(p.repo, '.git', 'forged.json')
  fs.writeFileSync(file, JSON.stringify(forged))
  t.teardown(() => fs.rmSync(file, {force: true}))
  const mainBefore = (await git(p.repo, 'rev-parse', 'main')).trim()
  const appended = await exp(['append', 'evaluation', file, '--lane', 'mallory'], {cwd: p.repo})
  t.equal(appended.code, 0, appended.stderr)
  const forgedId = appended.stdout.trim()

  const fsck = await exp(['fsck', '--json'], {cwd: p.repo})
  t.equal(fsck.code, 5, 'fsck exits non-zero')
  const problems = (JSON.parse(fsck.stdout) as {error: {data: {problems: {class?: string; id?: string}[]}}}).error.data.problems
  t.match(problems.find(x => x.id === forgedId), {class: 'forged_evaluation'}, 'fsck names the forged evaluation and its class')

  const res = await expJson<{verdict: string; ignored?: {id: string}[]; reasons: string[]}>(['promote', p.proposal, '--lane', 'me'], {cwd: p.repo})
  t.equal(res.verdict, 'reject', 'the real evaluation decides')
  t.ok(res.ignored?.some(x => x.id === forgedId), 'and the forged one is reported as ignored')
  t.equal((await git(p.repo, 'rev-parse', 'main')).trim(), mainBefore, 'main did not move')
  t.ok(fs.existsSync(path.join(p.repo, '.git', 'refs', 'research', 'rejected', p.proposal)), 'the branch is kept as rejected')
})

t.test('an evaluation whose numbers contradict themselves does not count, and makes no hypothesis supported', async t => {
  const p = await pendingProposal(t, BAD)
  const ledger = await p.store.ledger()
  const real = ledger.load<'evaluation'>(ledger.get(p.candidate)!).body as EvaluationBody
  const hyp = ledger.load<'proposal'>(ledger.get(p.proposal)!).body.hypothesis!
  // 1 of 2 passed, yet a success rate of 0.99; it even cites the real verifications
  const cites = ledger.get(p.candidate)!.cites
  const liar = {kind: 'evaluation' as const, body: {...real, total: 2, passed: 1, failed: 1, invalid: 0, success_rate: 0.99, comparison: {...real.comparison!, wins: 9, losses: 0, diff: 0.6}}, cites: [...cites, hyp]}
  await p.store.append(liar, {lane: 'mallory'})
  // taken on faith (no trust filter), the liar would make the hypothesis supported
  t.equal(hypotheses(await p.store.ledger(), new Date()).find(h => h.id === hyp)?.status, 'supported', 'unfiltered, the attack would work')
  const shown = await expJson<{id: string; status: string}[]>(['hypotheses'], {cwd: p.repo})
  t.not(shown.find(h => h.id === hyp)?.status, 'supported', 'the hypothesis is not supported by the contradictory evaluation')
  const fsck = await exp(['fsck', '--json'], {cwd: p.repo})
  t.equal(fsck.code, 5)
  t.match(fsck.stdout, /inconsistent_evaluation/)
  t.match(fsck.stdout, /success rate 0\.99 is not 1 of 2/)
})
