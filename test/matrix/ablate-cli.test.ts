import t from 'tap'
import {copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {exp, expJson, ROOT} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {git} from '../helpers/repo.js'
import {exampleRepo} from '../helpers/evolve.js'
import type {Ablation} from '../../src/matrix/ablate.js'

const refsOf = async (repo: string) => (await git(repo, 'for-each-ref', '--format=%(refname) %(objectname)')).trim()

t.test('exp ablate credits every rule of an expert skill, offers the lowest-credit removal as a proposal, and shows credits in blame and report', async t => {
  const repo = await exampleRepo(t)
  // the expert skill on main, and a third of the validation scenarios (held-out stays sealed and whole)
  const file = path.join(repo, 'skills', 'onboarding', 'SKILL.md')
  copyFileSync(path.join(ROOT, 'test/fixtures/skills/onboarding-expert/SKILL.md'), file)
  // its first eight rules: every rule credited, at a test's cost
  writeFileSync(file, readFileSync(file, 'utf8').replace('name: onboarding-expert', 'name: onboarding').replace(/^(9|1[0-5])\. .*\n/gm, ''))
  const dir = path.join(repo, 'scenarios')
  readdirSync(dir).filter(f => f.startsWith('val-')).sort().forEach((f, i) => i % 3 !== 0 && rmSync(path.join(dir, f)))
  await git(repo, 'commit', '-qam', 'the expert skill')

  // bad input first: nothing written
  const before = await refsOf(repo)
  const bad = [
    [['ablate', 'onboarding@9'], 3, /unknown skill version: onboarding@9/],
    [['ablate', 'onboarding', '--agent', 'scripted:sloppy'], 2, /no scripted profile/],
  ] as [string[], number, RegExp][]
  // refusals in one process (test/helpers/cli-batch.ts)
  const refused = await expBatch(bad.map(([args]) => ({args, cwd: repo})))
  bad.forEach(([args, code, msg], i) => {
    const r = refused[i]!
    t.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, msg)
  })
  t.equal(await refsOf(repo), before, 'no ref moved, no record written')

  const a = await expJson<Ablation>(['ablate', 'onboarding', '--repeat', '1'], {cwd: repo})
  const rules = a.units.filter(u => u.kind === 'rule')
  t.equal(rules.length, 8, 'one unit per rule of the skill')
  for (const u of rules) for (const s of ['validation', 'holdout'] as const) {
    const c = u.credit[s]!
    t.ok(c.ci[0] <= c.credit && c.credit <= c.ci[1], `${u.id} ${s}: ${c.credit} in ${c.ci}`)
    t.match(c.evaluation, /^el-/)
  }
  t.ok(rules.some(u => u.credit.validation!.credit > 0 || u.credit.holdout!.credit > 0), 'some rule earns its place')
  t.ok(a.recorded > 0)
  // the lowest-credit removal candidate is offered as an ordinary proposal
  t.ok(a.candidates.length > 0)
  t.equal(a.proposal?.unit, a.candidates[0])
  const branch = a.proposal!.branch
  t.match(branch, /^exp\/proposal\/pr-/)
  const removed = a.units.find(u => u.id === a.proposal!.unit)!.rule!
  const head = await git(repo, 'show', `${branch}:skills/onboarding/SKILL.md`)
  t.notOk(head.includes(removed), 'the proposal branch removes the rule')
  t.equal(head.split('\n').filter(l => /^\d+\. /.test(l)).length, 7)
  t.match(await git(repo, 'log', '-1', '--format=%B', branch), new RegExp(`Exp-Proposal: ${a.proposal!.id}`))
  // the normal path judges it
  const ev = await exp(['eval', a.proposal!.id, '--repeat', '1'], {cwd: repo})
  t.equal(ev.code, 0, ev.stderr)

  // blame --credit: each rule line with its credit
  const b = await expJson<{lines: {line: number; text: string}[]; credit: {note: string; lines: {line: number; unit: string; removal: boolean}[]}}>(['blame', 'onboarding', '--credit'], {cwd: repo})
  t.equal(b.credit.note, a.note)
  t.equal(b.credit.lines.length, 8)
  for (const c of b.credit.lines) t.equal(b.lines.find(l => l.line === c.line)!.text, a.units.find(u => u.id === c.unit)!.text[0], 'each credit sits on its own line')
  t.same(b.credit.lines.filter(c => c.removal).map(c => c.unit).sort(), [...a.candidates].sort())
  // the report has the credit section
  t.equal((await exp(['report'], {cwd: repo})).code, 0)
  t.match(readFileSync(path.join(repo, 'results', 'report.md'), 'utf8'), /## Rule credit \(`exp ablate`\)[\s\S]*\| rule-[0-9a-f]{10} \|/)
  t.match(readFileSync(path.join(repo, 'results', 'report.html'), 'utf8'), /<h2>Rule credit \(exp ablate\)<\/h2>[\s\S]*<td class="l">rule-[0-9a-f]{10}<\/td>/)

  // a rerun reuses every episode and the same note
  const again = await expJson<Ablation>(['ablate', 'onboarding', '--repeat', '1', '--no-propose'], {cwd: repo})
  t.equal(again.recorded, 0)
  t.equal(again.note, a.note)
  t.same(again.units.map(u => u.credit.validation!.credit), a.units.map(u => u.credit.validation!.credit))
})
