import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {git} from '../helpers/repo.js'
import {exampleRepo} from '../helpers/evolve.js'

// small budgets: the point is the shape and the isolation, not the science (bench/compare.mjs runs the default)
const SMALL = ['--budget-episodes', '100', '--iterations', '2', '--repeat', '1', '--train-repeat', '1']

interface Arm {
  arm: string
  namespace: string
  main_ref: string
  mode: string
  success: number
  ci: [number, number]
  total: number
  episodes: number
  evaluation: string
  manifest: string
}
interface CompareJson {
  id: string
  holdout: {sealed: boolean; certified: boolean}
  arms: Arm[]
  pairs: {a: string; b: string; pairs: number; wins: number; losses: number; mcnemar_p: number; bootstrap_ci: [number, number]}[]
  hypotheses: {id: string; verdict: string; evidence: string; test: {a: string; b: string}}[]
  note: string
}

/** Everything a command could have written: every ref with its value, and the results folder. */
async function snapshot(repo: string): Promise<string> {
  const refs = await git(repo, 'for-each-ref', '--format=%(refname) %(objectname)')
  const results = fs.existsSync(path.join(repo, 'results')) ? fs.readdirSync(path.join(repo, 'results')).sort().join(',') : ''
  return `${refs}\n${results}`
}

t.test('exp compare --json: four arms, each isolated, with intervals, paired tests and H1-H3; a rerun records nothing', async t => {
  const repo = await exampleRepo(t)
  const main0 = (await git(repo, 'rev-parse', 'main')).trim()
  const r = await expJson<CompareJson>(['compare', ...SMALL], {cwd: repo})
  t.same(r.arms.map(a => a.arm), ['baseline', 'trace2skill', 'memory', 'compiler'])
  t.same(r.arms.map(a => a.mode), ['off', 'record_only', 'closed_loop', 'record_only'])
  t.same(r.holdout, {sealed: true, certified: true}, 'the example seals its held-out split; the key is in .git/exp')
  const held = r.arms[0]!.total
  t.ok(held > 0)
  for (const a of r.arms) {
    t.equal(a.namespace, `cmp-${r.id}-${a.arm}`)
    t.equal(a.main_ref, `refs/exp/compare/${r.id}/${a.arm}/main`)
    t.equal(a.total, held, `${a.arm}: the same held-out episodes as every arm`)
    t.ok(a.ci[0] <= a.success && a.success <= a.ci[1], `${a.arm}: the rate is inside its interval`)
    t.ok(a.episodes >= a.total, `${a.arm}: episodes used counts its held-out episodes`)
  }
  t.equal(r.arms[0]!.episodes, held, 'the baseline learns nothing: its held-out episodes are all it used')
  t.ok(r.arms[2]!.episodes > held && r.arms[3]!.episodes > held, 'the memory and compiler arms spent episodes learning')
  t.equal(r.pairs.length, 6, 'every pair of arms')
  for (const p of r.pairs) t.equal(p.pairs, held, `${p.a} vs ${p.b} on the same episodes`)
  t.same(r.hypotheses.map(h => [h.id, h.test.a, h.test.b]), [['H1', 'compiler', 'trace2skill'], ['H2', 'compiler', 'baseline'], ['H3', 'compiler', 'memory']])
  for (const h of r.hypotheses) {
    t.match(h.verdict, /^(supported|not supported|contradicted)$/)
    t.match(h.evidence, /paired held-out episodes: \d+ won, \d+ lost/)
  }

  // every record of an arm is on its own lane; the manifests pin the namespace
  const lanes = (await git(repo, 'for-each-ref', '--format=%(refname)', 'refs/research/lanes/')).split('\n')
  for (const a of r.arms) t.ok(lanes.includes(`refs/research/lanes/${a.namespace}`), `${a.arm} has its lane`)
  const manifest = await (await expJson<{record: {body: {namespace?: string; memory?: {mode: string; recall?: string}}}}>(['inspect', r.arms[2]!.manifest], {cwd: repo})).record
  t.equal(manifest.body.namespace, r.arms[2]!.namespace)
  t.equal(manifest.body.memory?.mode, 'closed_loop')
  t.match(manifest.body.memory?.recall, /^rc-/, 'the memory arm ran with recalled knowledge, pinned by its manifest')
  const branches = await git(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/')
  t.notMatch(branches, /refs\/heads\/exp\/proposal\//, 'no arm proposes on the shared proposal prefix')
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main0, 'promotions land on the arms\' main refs, never on main')

  for (const f of ['compare.md', 'compare.json', 'compare.csv']) t.ok(fs.existsSync(path.join(repo, 'results', f)), f)
  t.equal(fs.readFileSync(path.join(repo, 'results', 'compare.csv'), 'utf8').trim().split('\n').length, 5, 'a header and four arms')
  t.match(fs.readFileSync(path.join(repo, 'results', 'compare.md'), 'utf8'), /## Hypotheses[\s\S]*\*\*H1\*\*/)

  const before = await snapshot(repo)
  const again = await expJson<CompareJson>(['compare', ...SMALL], {cwd: repo})
  t.same(again, r, 'a rerun finishes the same compare: the same answer')
  t.equal(await snapshot(repo), before, 'and writes no record, branch or ref')

  // the report draws the chart from history
  const report = await expJson<{research?: {compare?: {arms: {arm: string; success: number}[]}}}>(['report'], {cwd: repo})
  t.same(report.research?.compare?.arms.map(a => [a.arm, a.success]), r.arms.map(a => [a.arm, a.success]))
  t.ok(fs.existsSync(path.join(repo, 'results', 'chart-compare.svg')))
  t.match(fs.readFileSync(path.join(repo, 'results', 'report.md'), 'utf8'), /## Research questions[\s\S]*chart-compare\.svg/)

  // the attack: another lane writes a newer compare note whose arms' evaluations claim 99%
  // (copies of the real ones, numbers changed) and whose verdicts say H1-H3 are supported
  const fake = 'f'.repeat(12)
  const arms: {arm: string; mode: string; episodes: number; evaluation: string; namespace: string}[] = []
  for (const a of r.arms) {
    const real = (await expJson<{record: {body: {total: number}; cites: string[]}}>(['inspect', a.evaluation], {cwd: repo})).record
    const ev = await exp(['append', 'evaluation', '-', '--lane', `cmp-${fake}-${a.arm}`], {cwd: repo, input: JSON.stringify({body: {...real.body, success_rate: 0.99, passed: real.body.total}, cites: real.cites})})
    t.equal(ev.code, 0, ev.stderr)
    arms.push({arm: a.arm, mode: a.mode, episodes: a.episodes, evaluation: ev.stdout.trim(), namespace: `cmp-${fake}-${a.arm}`})
  }
  const text = `compare ${fake}: ${JSON.stringify({arms, hypotheses: ['H1', 'H2', 'H3'].map(id => ({id, verdict: 'supported', evidence: 'trust me'})), pairs: []})}`
  t.equal((await exp(['append', 'note', '-', '--lane', `cmp-${fake}`], {cwd: repo, input: JSON.stringify({text})})).code, 0)
  const after = await expJson<{research?: {compare?: {id: string; arms: {arm: string; success: number}[]; hypotheses: {evidence: string}[]; recomputed: boolean}}}>(['report'], {cwd: repo})
  t.equal(after.research?.compare?.id, r.id, 'the report still shows the real compare: the forged arms do not stand')
  t.same(after.research?.compare?.arms.map(a => [a.arm, a.success]), r.arms.map(a => [a.arm, a.success]))
  t.notOk(after.research?.compare?.hypotheses.some(h => h.evidence === 'trust me'))
  t.equal(after.research?.compare?.recomputed, true, 'the verdicts recomputed from the episodes on the private lanes of this clone')
})

t.test('the report recomputes the paired tests and verdicts from the held-out episodes; a clone without them shows the note\'s and says so', async t => {
  const repo = await exampleRepo(t)
  const r = await expJson<CompareJson>(['compare', ...SMALL, '--arms', 'baseline,compiler'], {cwd: repo})
  const report = await expJson<{research?: {compare?: {id: string; recomputed: boolean; hypotheses: {id: string; verdict: string; evidence: string}[]; pairs: {a: string; b: string; mcnemar_p: number}[]}}}>(['report'], {cwd: repo})
  const c = report.research!.compare!
  t.equal(c.id, r.id)
  t.equal(c.recomputed, true)
  t.same(c.hypotheses, r.hypotheses.map(h => ({id: h.id, verdict: h.verdict, evidence: h.evidence})), 'the verdicts exp compare gave, recomputed')
  // in a clone that lacks the private lanes, the note's verdicts, said to be the note's
  for (const ref of (await git(repo, 'for-each-ref', '--format=%(refname)', 'refs/research/private/')).trim().split('\n')) await git(repo, 'update-ref', '-d', ref)
  const bare = await expJson<{research?: {compare?: {recomputed: boolean; hypotheses: {verdict: string}[]}}}>(['report'], {cwd: repo})
  t.equal(bare.research?.compare?.recomputed, false)
  t.same(bare.research?.compare?.hypotheses.map(h => h.verdict), r.hypotheses.map(h => h.verdict))
  t.match(fs.readFileSync(path.join(repo, 'results', 'report.md'), 'utf8'), /as the note records them: the held-out episodes are on a private lane this clone does not have/)
  t.same(c.pairs.map(p => [p.a, p.b, p.mcnemar_p]), r.pairs.map(p => [p.a, p.b, p.mcnemar_p]))
})

t.test('exp gain --json: the gain with its paired interval and the supporting metrics', async t => {
  const repo = await exampleRepo(t)
  const r = await expJson<{gain: number; ci: [number, number]; mcnemar_p: number; pairs: number; closed_loop: {success: number; total: number; metrics: Record<string, unknown>}; off: {success: number; total: number; metrics: Record<string, unknown>}}>(['gain', ...SMALL.slice(0, 2), '--iterations', '1', ...SMALL.slice(4)], {cwd: repo})
  t.equal(r.closed_loop.total, r.off.total, 'the same held-out episodes on both sides')
  t.equal(r.pairs, r.off.total)
  t.ok(Math.abs(r.gain - (r.closed_loop.success - r.off.success)) < 1e-6, 'gain = score(closed_loop) - score(off)')
  t.ok(r.ci[0] <= r.gain && r.gain <= r.ci[1], 'the gain is inside its paired interval')
  t.ok(r.mcnemar_p >= 0 && r.mcnemar_p <= 1)
  for (const side of [r.closed_loop, r.off]) for (const k of ['repeated_failure_rate', 'invalid_rate', 'recalled_cited_rate', 'hypothesis_redundancy', 'train_runs']) t.ok(k in side.metrics, k)
  t.equal(r.off.metrics.train_runs, r.closed_loop.metrics.train_runs, 'the off side ran as many train runs as the closed loop')
  t.equal(r.off.metrics.hypotheses, 0, 'without memory nothing is proposed')
  t.equal(r.off.metrics.recalled_cited_rate, null)
  const report = await expJson<{research?: {gain?: {gain: number; ci: [number, number]; mcnemar_p: number; pairs: number; recomputed: boolean}}}>(['report'], {cwd: repo})
  t.ok(Math.abs(report.research!.gain!.gain - r.gain) < 1e-6, 'exp report shows the gain')
  t.match(report.research!.gain, {recomputed: true, ci: r.ci, mcnemar_p: r.mcnemar_p, pairs: r.pairs}, 'its interval and test recomputed from the paired episodes: the ones exp gain gave')
})

t.test('bad input (an unknown arm or memory mode, a sealed split without its key) is refused before anything is written', async t => {
  const repo = await exampleRepo(t)
  const before = await snapshot(repo)
  // refusals, not processes: one process runs them all (test/helpers/cli-batch.ts)
  const usage = [
    [['compare', '--arms', 'baseline,bogus'], /unknown arm: "bogus"/],
    [['compare', '--arms', ','], /--arms is empty/],
    [['run', 'train', '--memory-mode', 'sometimes'], /unknown memory mode: "sometimes"/],
    [['evolve', '-n', '1', '--memory-mode', 'ON'], /unknown memory mode: "ON"/],
    [['evolve', '-n', '1', '--explore', '1'], /--explore must be a number in \[0, 1\), got "1"/],
    [['evolve', '-n', '1', '--explore', 'often'], /--explore must be a number in \[0, 1\), got "often"/],
    [['compare', '--explore', '-0.1'], /--explore must be a number in \[0, 1\), got "-0.1"/],
    [['gain', '--explore', '0.3x'], /--explore must be a number in \[0, 1\), got "0.3x"/],
    [['research', 'tuning', '--memory-mode', 'x'], /unknown memory mode: "x"/],
  ] as [string[], RegExp][]
  const refused = await expBatch(usage.map(([args]) => ({args, cwd: repo})))
  usage.forEach(([args, what], i) => {
    const r = refused[i]!
    t.equal(r.code, 2, `${args.join(' ')}: usage error`)
    t.match(r.stderr, what)
    t.match(r.stderr, /hint: (arms are|name one or more of|use one of|use a number) /)
  })
  t.equal(await snapshot(repo), before, 'nothing written')

  // a sealed held-out split without its key: compare and gain cannot certify, evolve cannot
  // measure its held-out baseline; each runs nothing, writes nothing (not even evolve's start note), exits 7
  fs.rmSync(path.join(repo, '.git', 'exp', 'holdout.key'))
  const env = {EXP_HOLDOUT_KEY: '', EXP_HOLDOUT_KEY_FILE: ''}
  const cmds: [string[], RegExp][] = [[['compare', ...SMALL], /cannot certify/], [['gain', ...SMALL], /cannot certify/], [['evolve', '-n', '1'], /exp evolve cannot measure held-out success: .*nothing was run/]]
  const uncertified = await expBatch(cmds.map(([args]) => ({args, cwd: repo, env})))
  cmds.forEach(([args, what], i) => {
    const r = uncertified[i]!
    t.equal(r.code, 7, `${args[0]}: ${r.stderr}`)
    t.match(r.stderr, what)
  })
  t.equal(await snapshot(repo), before, 'still nothing written')
})

t.test('memory modes on exp run: the manifest pins what was recalled; off keeps the episodes out of mining', async t => {
  const repo = await exampleRepo(t)
  const off = await expJson<{manifest: string}>(['run', 'train', '--memory-mode', 'off', '--lane', 'm'], {cwd: repo})
  const mined0 = await exp(['mine', '--json'], {cwd: repo})
  t.notMatch(mined0.stdout, /"kn-/, 'nothing to mine from a run under memory mode off')
  const refused = await exp(['mine', '--manifest', off.manifest], {cwd: repo})
  t.not(refused.code, 0)
  t.match(refused.stderr, /memory mode off/)
  await expJson(['run', 'train', '--lane', 'm'], {cwd: repo})
  await expJson(['mine'], {cwd: repo})
  const plain = await expJson<{manifest: string; success_rate: number}>(['run', 'validation', '--lane', 'm'], {cwd: repo})
  const recalled = await expJson<{manifest: string; success_rate: number}>(['run', 'validation', '--lane', 'm', '--memory-mode', 'closed_loop'], {cwd: repo})
  t.not(recalled.manifest, plain.manifest, 'another recall is another experiment')
  const m = (await expJson<{record: {body: {memory?: {mode: string; recall: string; knowledge: string[]; digest: string}}}}>(['inspect', recalled.manifest], {cwd: repo})).record
  t.equal(m.body.memory?.mode, 'closed_loop')
  t.ok(m.body.memory!.knowledge.length > 0)
  t.match(m.body.memory!.digest, /^sha256:[0-9a-f]{64}$/)
  const rc = (await expJson<{record: {body: {items: {knowledge: string}[]}}}>(['inspect', m.body.memory!.recall], {cwd: repo})).record
  t.same(rc.body.items.map(i => i.knowledge), m.body.memory!.knowledge, 'the manifest names the recall record and its items in rank order')
  const pm = (await expJson<{record: {body: {memory?: unknown}}}>(['inspect', plain.manifest], {cwd: repo})).record
  t.equal(pm.body.memory, undefined, 'the default mode pins nothing: manifests of earlier runs keep their ids')
  t.ok(recalled.success_rate >= plain.success_rate, `the scripted agent follows recalled rules (${recalled.success_rate} >= ${plain.success_rate})`)
})
