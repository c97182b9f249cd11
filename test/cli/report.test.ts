import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {expBatch} from '../helpers/cli-batch.js'
import {historyRepo} from '../helpers/promotions.js'
import {escapeHtml} from '../../src/reports/escape.js'
import type {Report} from '../../src/reports/index.js'
import type {Provenance} from '../../src/projections/provenance.js'
import type {Blame} from '../../src/projections/blame.js'

t.test('provenance, blame and report on a repository with two promotions and a rejection', async t => {
  const h = await historyRepo(t)
  const cwd = h.repo
  const [first, second] = h.accepted

  // read-only commands on a repository nobody writes to, checked for what they print: one
  // process runs them all (test/helpers/cli-batch.ts; a node start and module load each cost more than the command)
  const [report, prov, prov2, mermaid, blame, blameText] = await expBatch([
    ['report', '--out', 'site', '--json'],
    ['provenance', 'onboarding', '--json'],
    ['provenance', 'onboarding@2'],
    ['provenance', 'onboarding', '--format', 'mermaid'],
    ['blame', 'onboarding', '--json'],
    ['blame', 'onboarding'],
  ].map(args => ({args, cwd})))
  const json = <T>(r: {code: number; stdout: string; stderr: string}): T => {
    t.equal(r.code, 0, r.stderr)
    return JSON.parse(r.stdout) as T
  }

  t.test('exp report writes report.md, a self-contained report.html and the chart', async t => {
    const html = fs.readFileSync(path.join(cwd, 'site/report.html'), 'utf8')
    t.notMatch(html, /(src|href)\s*=\s*["']?\s*(https?:)?\/\//i, 'no external asset')
    t.notMatch(html, /<script\b/i)
    t.match(html, /<svg [^>]*class="exp-chart"/, 'the chart, inline')
    for (const why of h.rejected.result.reasons) t.ok(html.includes(escapeHtml(why)), `the rejection reason: ${why}`)
    for (const tr of [...first.failing, ...second.failing]) t.ok(html.includes(tr), 'the provenance reaches every failing trace')
    const md = fs.readFileSync(path.join(cwd, 'site/report.md'), 'utf8')
    t.match(md, /```mermaid\nflowchart LR/)
    t.match(md, /Iteration 2\n[\s\S]*?Decision:\n {2}REJECT/)
    t.match(fs.readFileSync(path.join(cwd, 'site/chart-onboarding.svg'), 'utf8'), /^<svg xmlns=/)
  })

  t.test('exp report --json prints the model: three iterations, the chart, one rejection', async t => {
    const r = json<Report>(report)
    t.equal(r.format, 'exp-report@1')
    const s = r.skills[0]!
    t.match(s, {skill: 'onboarding', version: 3})
    t.same(s.iterations.map(i => [i.proposal, i.decision?.verdict]), [[first.proposal, 'accept'], [h.rejected.proposal, 'reject'], [second.proposal, 'accept']])
    t.same(s.iterations.map(i => i.skill.version), [1, 2, 2])
    t.ok(s.iterations.every(i => i.training && i.validation), 'each iteration has its train run and its validation')
    t.same(s.chart.map(p => p.iteration), [0, 1, 2, 3])
    t.ok(s.chart.every(p => typeof p.holdout === 'number'), 'held-out of main known after every iteration')
    t.same(s.rejected.map(x => x.proposal), [h.rejected.proposal])
  })

  t.test('exp provenance: --json, text and mermaid', async t => {
    const p = json<Provenance>(prov)
    t.same(p.versions.map(v => [v.version, v.commit]), [[1, h.initial], [2, first.result.merge], [3, second.result.merge]])
    t.same(p.versions[2]!.failures, [...second.failing].sort())
    t.equal(prov2.code, 0, prov2.stderr)
    t.match(prov2.stdout, new RegExp(`onboarding v2 {2}promoted by merge ${first.result.merge!.slice(0, 12)} \\(${first.proposal}\\)`))
    t.match(prov2.stdout, new RegExp(`failed train trace ${first.failing[0]}`))
    t.notMatch(prov2.stdout, /onboarding v3/)
    t.match(mermaid.stdout, /^flowchart LR\n/)
    t.ok(mermaid.stdout.includes(`${first.failing[0]!.replace(/-/g, '_')} --> ${first.evidence!.replace(/-/g, '_')}`))
  })

  t.test('exp blame: each line with its promotion, --json and text', async t => {
    const b = json<Blame>(blame)
    t.match(b, {skill: 'onboarding', path: 'skills/onboarding/SKILL.md', main: {version: 3}})
    t.same(b.lines.filter(l => l.origin === 'promotion').map(l => [l.version, l.proposal, l.knowledge]), [[2, first.proposal, [first.knowledge]], [3, second.proposal, [second.knowledge]]])
    t.match(blameText.stdout, new RegExp(`v3 merge ${second.result.merge!.slice(0, 12)} ${second.proposal} ${second.knowledge} +\\| 8\\. Never call`))
    t.match(blameText.stdout, /v1 initial [0-9a-f]{12} +\| ## Procedure/)
  })
})
