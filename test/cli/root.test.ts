import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {exampleRepo} from '../helpers/evolve.js'
import {git, makeRepo} from '../helpers/repo.js'
import {builtinCounts} from '../helpers/scenarios.js'

const COUNT = await builtinCounts()

// Problem 5 of issue 13: commands ignored the repository root and reported missing files as bugs.
t.test('from a subfolder, commands use the repository root; -C does the same from anywhere', async t => {
  const repo = await exampleRepo(t)
  const sub = path.join(repo, 'skills', 'onboarding')
  const [lint, list, slint, report] = await Promise.all([
    exp(['skills', 'lint'], {cwd: sub}),
    exp(['scenarios', 'list', '--split', 'validation'], {cwd: sub}),
    exp(['scenarios', 'lint'], {cwd: sub}),
    exp(['skills', 'lint', '.'], {cwd: sub}),
  ])
  t.equal(lint.code, 0, lint.stderr)
  t.match(lint.stdout, /^1 skill ok$/m)
  t.equal(list.code, 0, list.stderr)
  t.match(list.stdout, new RegExp(`^validation \\(${COUNT.validation}\\)$`, 'm'))
  t.equal(slint.code, 0, slint.stderr)
  t.match(slint.stdout, new RegExp(`${COUNT.all} scenario\\(s\\) in ${COUNT.all} file\\(s\\): no problems`))
  t.equal(report.code, 0, 'an explicit path is relative to the current folder')
  const elsewhere = await makeRepo(t)
  const viaC = await exp(['-C', sub, 'scenarios', 'list', '--json'], {cwd: elsewhere})
  t.equal(viaC.code, 0, viaC.stderr)
  t.equal((JSON.parse(viaC.stdout) as {scenarios: unknown[]}).scenarios.length, COUNT.all)
  const out = await exp(['report', '--json'], {cwd: sub})
  t.equal(out.code, 0, out.stderr)
  t.ok(fs.existsSync(path.join(repo, 'results', 'report.html')), 'exp report writes results/ at the top of the repository')
  t.notOk(fs.existsSync(path.join(sub, 'results')))
})

t.test('missing folders and files are clear errors that name them, never "this is unexpected"', async t => {
  const repo = await makeRepo(t)
  const cases: [string[], RegExp][] = [
    [['scenarios', 'list'], /unknown scenarios folder: scenarios/],
    [['scenarios', 'lint'], /unknown scenarios folder: scenarios/],
    [['scenarios', 'lint', 'nope'], /unknown scenarios folder: nope/],
    [['append', '--batch', 'missing.jsonl'], /unknown input file: missing\.jsonl/],
    [['append', 'note', 'gone.yaml'], /unknown input file: gone\.yaml/],
    [['skills', 'lint'], /unknown skills folder/],
    [['-C', 'no/such/folder', 'ledger'], /unknown folder: no\/such\/folder/],
  ]
  // one process for the table (test/helpers/cli-batch.ts); a leading -C is bin/run.js's to
  // move, so that case stays a process of its own
  const inBatch = cases.filter(([args]) => args[0] !== '-C')
  const batch = await expBatch(inBatch.map(([args]) => ({args, cwd: repo})))
  for (const [args, message] of cases) {
    const r = args[0] === '-C' ? await exp(args, {cwd: repo}) : batch[inBatch.findIndex(c => c[0] === args)]!
    t.equal(r.code, 3, `exp ${args.join(' ')} exits 3 (not found)`)
    t.match(r.stderr, message)
    t.notMatch(r.stderr, /unexpected|report it/)
  }
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'nothing written')
  t.match((await exp(['scenarios', 'list'], {cwd: repo})).stderr, /hint: .*exp init --example onboarding/)
})
