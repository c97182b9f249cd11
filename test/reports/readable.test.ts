import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {historyRepo} from '../helpers/promotions.js'
import {exampleRepo} from '../helpers/evolve.js'
import {num} from '../../src/reports/format.js'
import {ruleText} from '../../src/reports/rule-text.js'

// Problem 8 of issue 13: reports showed raw pattern keys, the HTML had no provenance graph,
// exp eval printed raw floats.
t.test('the report and exp provenance show the mined rules in the words of the terminal dashboard', async t => {
  const repo = await exampleRepo(t)
  // two train repetitions: enough evidence for a first candidate the policy accepts
  const evolve = await exp(['evolve', '-n', '1', '--train-repeat', '2', '--eval-repeat', '1', '--lane', 'me'], {cwd: repo})
  t.equal(evolve.code, 0, evolve.stderr)
  const terminal = evolve.stdout.split('\n').filter(l => /^ {2}\+ .* \[\w+, \d+ supporting \/ \d+ against\]$/.test(l))
  t.ok(terminal.length > 0, 'the terminal shows observed patterns')
  const r = await exp(['report', '--out', 'site'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  const md = fs.readFileSync(path.join(repo, 'site/report.md'), 'utf8')
  const html = fs.readFileSync(path.join(repo, 'site/report.html'), 'utf8')
  for (const line of terminal) {
    t.ok(md.includes(line), `report.md: ${line.trim()}`)
    const markup = line.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
    t.ok(html.includes(markup.replaceAll('"', '&quot;').replaceAll("'", '&#39;').replaceAll('`', '&#96;')) || html.includes(markup) || html.includes(line), `report.html: ${line.trim()}`)
  }
  for (const text of [html, md]) t.notMatch(text, /(missing_check|bad_sequence|termination_failure|incorrect_assumption):[a-z_]+[:<>]/, 'no raw pattern key anywhere')
  const prov = await exp(['provenance', 'onboarding'], {cwd: repo})
  t.notMatch(prov.stdout, /(missing_check|bad_sequence):[a-z_]+[:<>]/)
  t.match(prov.stdout, /evidence ed-[0-9a-f]{24} (Before|Never|If|After) `/, 'exp provenance shows the rule too')
})

t.test('the HTML report draws the provenance as an inline SVG graph, rejected proposals included', async t => {
  const h = await historyRepo(t)
  const r = await exp(['report', '--out', 'site'], {cwd: h.repo})
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stderr, '')
  const html = fs.readFileSync(path.join(h.repo, 'site/report.html'), 'utf8')
  const svg = /<svg class="exp-provenance"[\s\S]*?<\/svg>/.exec(html)?.[0]
  t.ok(svg, 'a provenance graph, inline')
  t.notMatch(html, /<script\b/i)
  t.notMatch(html, /(src|href)\s*=\s*["']?\s*(https?:)?\/\//i, 'still self-contained')
  for (const s of [...h.accepted, h.rejected]) {
    t.match(svg!, `data-id="${s.proposal}"`, `the graph has proposal ${s.proposal}`)
    t.match(svg!, `data-id="${s.result.decision}"`, 'and its decision')
  }
  t.match(svg!, /class="n reject"/, 'the rejected proposal drawn as rejected')
  t.match(svg!, /class="n failure"/, 'down to failing traces')
  t.match(svg!, /onboarding v3/)
  t.ok((svg!.match(/<path class="e"/g) ?? []).length > 5, 'with edges')
})

t.test('numbers are formatted: thousands grouped, two decimals at most', async t => {
  t.equal(num(22767.8125), '22,767.81')
  t.equal(num(1200), '1,200')
  t.equal(num(0.1 + 0.2), '0.30')
  t.equal(ruleText({signature: 'missing_check:x', description: 'Before `a`, call `b`. Runs that followed it passed 3/3.'}), 'Before `a`, call `b`.')
  t.equal(ruleText({signature: 'k', rule: {kind: 'nonsense'}}), 'k', 'an unknown rule falls back to the key')
  const h = await historyRepo(t)
  const r = await exp(['eval', h.accepted[0].proposal, '--lane', 'review', '--repeat', '1'], {cwd: h.repo})
  t.equal(r.code, 0, r.stderr)
  const scores = r.stdout.slice(r.stdout.indexOf('SCORE'))
  t.notMatch(scores, /\d\.\d{3,}/, 'no raw float in the score table')
  t.match(scores, /^tokens\s+[\d,]+(\.\d\d)?\s+[\d,]+(\.\d\d)?$/m)
})

// Found by an attack sweep: a proposal record another lane wrote (a copy of a real one, its
// versions stated as v41 and v42, no evaluation, no decision) became an iteration of the report
// with those versions, and "main after" it went back to its base: the report said main was v41
// at the base's held-out rate while main was v3.
t.test("another lane's bare proposal record neither names versions main does not have nor moves main in the report", async t => {
  const h = await historyRepo(t)
  const last = (JSON.parse((await exp(['ledger', '--kind', 'proposal', '--json'], {cwd: h.repo})).stdout) as {body: {base: {version?: string}; head: {version?: string}; edits: {lines: string[]}[]}; cites: string[]}[])[0]!
  const body = structuredClone(last.body)
  body.base.version = '41'
  body.head.version = '42'
  const r = await exp(['append', '--batch', '-', '--lane', 'evil'], {cwd: h.repo, input: `${JSON.stringify({kind: 'proposal', body, cites: last.cites, key: 'evil-1'})}\n`})
  t.equal(r.code, 0, r.stderr)
  // and one whose recall and hypothesis name records of other kinds (it stopped `exp report`)
  const odd = {...structuredClone(last.body), recall: (body as unknown as {hypothesis: string}).hypothesis, hypothesis: (body as unknown as {recall: string}).recall}
  const r2 = await exp(['append', '--batch', '-', '--lane', 'evil2'], {cwd: h.repo, input: `${JSON.stringify({kind: 'proposal', body: odd, cites: [], key: 'evil-2'})}\n`})
  t.equal(r2.code, 0, r2.stderr)
  const rep = await exp(['report', '--json'], {cwd: h.repo})
  t.equal(rep.code, 0, rep.stderr)
  t.notMatch(fs.readFileSync(path.join(h.repo, 'results', 'report.md'), 'utf8'), /\bv4[12]\b/, 'no version the record made up')
  const md = fs.readFileSync(path.join(h.repo, 'results', 'report.md'), 'utf8')
  const rows = md.split('\n').filter(l => /^\| \d+ \| v\d+ \|/.test(l))
  t.match(rows.at(-1), /^\| \d+ \| v3 \|/, 'main after it is main as it was: v3')
  // and the iteration says whose proposal it is
  const evilId = (JSON.parse((await exp(['ledger', '--lane', 'evil', '--json'], {cwd: h.repo})).stdout) as {id: string}[])[0]!.id
  t.match(md, new RegExp(`Candidate v\\d+ \\(${evilId}, lane evil\\):`), 'the iteration names the lane that wrote the proposal')
})
