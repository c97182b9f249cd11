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

  // another lane wrote a note first under the key this ablation's note once had (skill blob,
  // agent, seed, repeat: all guessable): the note's id is its content's, nothing is held against it
  const blob = (await git(repo, 'rev-parse', 'main:skills/onboarding/SKILL.md')).trim()
  const squat = await exp(['append', 'note', '-', '--lane', 'mallory', '--key', `ablate/${blob}/scripted/42/1`], {cwd: repo, input: '{"text":"mine"}'})
  t.equal(squat.code, 0, squat.stderr)

  const a = await expJson<Ablation>(['ablate', 'onboarding', '--repeat', '1'], {cwd: repo})
  t.equal(a.agent, 'scripted', 'the key planted was the one the note once had')
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

  // an ablation note is text any lane can write: later notes whose numbers do not come from the
  // evaluations they name are not what blame and the report show
  const genuine = (await expJson<{id: string; body: {text: string}}[]>(['ledger', '--kind', 'note'], {cwd: repo})).find(n => n.id === a.note)!
  const summary = JSON.parse(genuine.body.text) as Ablation
  const flip = structuredClone(summary)
  for (const u of flip.units) {
    u.credit.validation!.credit = -0.4321
    u.removal = true
  }
  const stolen = structuredClone(summary)
  stolen.units[0]!.credit.validation!.evaluation = stolen.units[1]!.credit.validation!.evaluation
  const moved = structuredClone(summary)
  moved.units[0]!.text = moved.units[1]!.text
  // (found by an attack sweep: a unit id of another type stopped `exp report` for everyone, and
  // the agent and repetitions a note names were shown as they were written)
  const typed = structuredClone(summary) as unknown as {units: {id: unknown}[]}
  typed.units[0]!.id = 12345
  const renamed = structuredClone(summary)
  renamed.agent = 'openai:gpt-5 (human-reviewed)'
  const repeated = structuredClone(summary)
  repeated.repeat = 1000
  const written: Record<string, string> = {}
  for (const [name, forged] of Object.entries({stolen, moved, flip, typed, renamed, repeated})) {
    const r = await exp(['append', 'note', '-', '--lane', 'mallory', '--json'], {cwd: repo, input: JSON.stringify({text: JSON.stringify(forged)})})
    t.equal(r.code, 0, `${name}: ${r.stderr}`)
    written[name] = (JSON.parse(r.stdout) as {id: string}).id
  }
  const shown = await expJson<{credit: {note: string; lines: {removal: boolean}[]}}>(['blame', 'onboarding', '--credit'], {cwd: repo})
  t.equal(shown.credit.note, a.note, 'the latest note that re-derives, not the forged ones after it')
  t.same(shown.credit.lines.filter(c => c.removal).length, a.candidates.length)
  const report = await exp(['report'], {cwd: repo})
  t.equal(report.code, 0, report.stderr)
  t.notMatch(readFileSync(path.join(repo, 'results', 'report.md'), 'utf8'), /-43\.2|human-reviewed|repeat 1000/, 'the report shows no forged credit')
  const blamed = await exp(['blame', 'onboarding', '--credit'], {cwd: repo})
  t.notMatch(blamed.stdout, /human-reviewed|repeat 1000/)
  // the note of the wrong shape is named, once, by both views; those that do not re-derive are passed over quietly
  for (const r of [report, blamed]) {
    t.equal(r.stderr.split(`warning: skipped note ${written.typed}: a malformed ablation note (units[0].id is not a string)`).length, 2, r.stderr)
    t.notMatch(r.stderr, new RegExp(`${written.stolen}|${written.flip}`))
  }

  // (found by an attack sweep: the note was keyed by skill blob, agent, seed and repeat only, so a
  // run with other splits recorded every episode and then failed on its own note, "already exists
  // with a different digest", exit 4; and the same removal offered again, with other credits in
  // its reason, failed so on its proposal.) The note is content-addressed: a run of its own
  const v = await exp(['ablate', 'onboarding', '--repeat', '1', '--splits', 'validation', '--json'], {cwd: repo})
  t.equal(v.code, 0, v.stderr)
  const va = JSON.parse(v.stdout) as Ablation
  t.equal(va.recorded, 0, 'every episode reused')
  t.not(va.note, a.note, 'a note of its own')
  t.same(va.splits, ['validation'])
  t.equal(va.candidates[0], a.candidates[0], 'the same removal is the lowest-credit one on validation alone')
  t.equal(va.proposal?.id, a.proposal!.id, 'the same removal on the same base: the proposal made already')
  const ids = (await expJson<{id: string}[]>(['ledger', '--kind', 'note'], {cwd: repo})).map(n => n.id)
  t.ok(ids.includes(a.note) && ids.includes(va.note), 'both notes are in the ledger')
  t.equal((await expJson<{id: string}[]>(['ledger', '--kind', 'proposal'], {cwd: repo})).length, 1, 'one proposal')
  const latest = await expJson<{credit: {note: string}}>(['blame', 'onboarding', '--credit'], {cwd: repo})
  t.equal(latest.credit.note, va.note, 'the views show the latest ablation')
  const text = (await exp(['blame', 'onboarding', '--credit'], {cwd: repo})).stdout
  t.match(text, /^val [+-]\d/m)
  t.notMatch(text, /hol [+-]\d/, 'of validation alone')
  // the same command again: the same note
  t.equal((await expJson<Ablation>(['ablate', 'onboarding', '--repeat', '1', '--splits', 'validation', '--no-propose'], {cwd: repo})).note, va.note)

  // the same SKILL.md on another branch: a note of its own, which is that branch's; main's views
  // keep showing the ablation of a commit of main's own line
  await git(repo, 'branch', 'other', 'main')
  await git(repo, 'commit', '-q', '--allow-empty', '-m', 'another line')
  await git(repo, 'branch', '-f', 'other', 'HEAD')
  await git(repo, 'reset', '-q', '--hard', 'HEAD~1')
  const otherTip = (await git(repo, 'rev-parse', 'other')).trim()
  const o = await exp(['ablate', 'onboarding', '--repeat', '1', '--splits', 'validation', '--no-propose', '--main', 'other', '--json'], {cwd: repo})
  t.equal(o.code, 0, o.stderr)
  const oa = JSON.parse(o.stdout) as Ablation
  t.equal(oa.commit, otherTip)
  t.equal(oa.blob, a.blob, 'the same SKILL.md')
  t.not(oa.note, va.note, 'a note of its own')
  t.equal((await expJson<{credit: {note: string}}>(['blame', 'onboarding', '--credit'], {cwd: repo})).credit.note, va.note, "main's view: the ablation on main's line")
  t.equal((await expJson<{credit: {note: string}}>(['blame', 'onboarding', '--credit', '--main', 'other'], {cwd: repo})).credit.note, oa.note, "the other branch's view: its own")
  t.equal((await expJson<{credit?: {note: string}[]}>(['report', '--out', 'site'], {cwd: repo})).credit?.[0]?.note, va.note, "the report of main: the ablation on main's line")
})
