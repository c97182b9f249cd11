// `npm run bench -- matrix`: the cross-model experiment end to end. `exp init --example
// onboarding` then `exp matrix --skill-source '*' --executor '*'` at default settings (the three
// scripted profiles: three evolve runs in their namespaces, 3 x 3 held-out cells plus the
// initial skill's row, every rule left out and reworded per executor): wall time (target
// <= 5 min on the 2-core machine), episodes, the matrix, the rule classes and H4; the same
// command again (it must reuse everything); then `exp ablate` of the skill the careless
// source evolved (leave-one-rule-out and leave-one-patch-out on validation and held-out,
// repeat 3), and once more (reused).
import {tempRepo, cleanup, timeCommand, fmtMs, printTable, writeResults, BIN, pct, expJson} from './lib.mjs'

const rows = []
const results = {}
try {
  const repo = tempRepo('matrix')
  await timeCommand(process.execPath, [BIN, 'init', '--example', 'onboarding'], {cwd: repo})
  const r = await expJson(repo, ['matrix', '--skill-source', '*', '--executor', '*'], 'matrix')
  const m = r.res
  rows.push({case: "exp matrix --skill-source '*' --executor '*' (3 x 3, defaults)", exp: `${fmtMs(r.ms)}, ${m.recorded} episodes`, rss: `${r.rssMB.toFixed(0)} MB`, target: '<= 5 min', ok: r.ms <= 300_000})
  for (const s of m.sources) {
    const row = m.executors.map(e => m.cells.find(c => c.source === s.spec && c.executor === e)).map(c => `${pct(c.rate)} [${pct(c.ci[0])}, ${pct(c.ci[1])}]`).join(' | ')
    rows.push({case: `skill from ${s.spec} (v${s.evolve.promoted + 1}, ${s.rules.length} rules) on ${m.executors.join(' | ')}`, exp: row, target: ''})
  }
  rows.push({case: `initial skill on ${m.executors.join(' | ')}`, exp: m.initial.map(c => pct(c.rate)).join(' | '), target: ''})
  const classes = {}
  for (const s of m.sources) for (const x of s.rules) classes[x.class] = (classes[x.class] ?? 0) + 1
  rows.push({case: 'rule classes', exp: Object.entries(classes).map(([k, v]) => `${v} ${k}`).join(', ') || 'no rule', target: 'every rule classed'})
  rows.push({case: 'H4', exp: m.h4.verdict, target: 'stated'})
  results.matrix = {ms: r.ms, rss_mb: r.rssMB, episodes: m.recorded, executors: m.executors, cells: m.cells.map(c => ({source: c.source, executor: c.executor, rate: c.rate, ci: c.ci, passed: c.passed, total: c.total})), initial: m.initial.map(c => ({executor: c.executor, rate: c.rate})), sources: m.sources.map(s => ({spec: s.spec, promoted: s.evolve.promoted, rejected: s.evolve.rejected, episodes: s.evolve.episodes, holdout_after: s.evolve.holdout_after, rules: s.rules.length})), classes, h4: m.h4}

  const again = await expJson(repo, ['matrix'], 'matrix-again')
  rows.push({case: 'exp matrix again (resumed: every run finished, every episode on record)', exp: `${fmtMs(again.ms)}, ${again.res.recorded} new episodes`, target: '0 new episodes', ok: again.res.recorded === 0})
  results.rerun = {ms: again.ms, episodes: again.res.recorded}

  // exp ablate of an evolved skill: the source that learned most
  const best = [...m.sources].sort((a, b) => b.rules.length - a.rules.length)[0]
  const a = await expJson(repo, ['ablate', 'onboarding', '--main', best.namespace.mainRef], 'ablate')
  const rules = a.res.units.filter(u => u.kind === 'rule')
  rows.push({case: `exp ablate onboarding (the skill ${best.spec} evolved: ${rules.length} rules, ${a.res.units.length - rules.length} patches; validation + held-out, repeat 3)`, exp: `${fmtMs(a.ms)}, ${a.res.recorded} episodes; ${a.res.candidates.length} removal candidate(s)${a.res.proposal ? `, ${a.res.proposal.id} offered` : ''}`, rss: `${a.rssMB.toFixed(0)} MB`, target: ''})
  const a2 = await expJson(repo, ['ablate', 'onboarding', '--main', best.namespace.mainRef], 'ablate-again')
  rows.push({case: 'exp ablate again (reused)', exp: `${fmtMs(a2.ms)}, ${a2.res.recorded} new episodes`, target: '0 new episodes', ok: a2.res.recorded === 0})
  results.ablate = {skill_from: best.spec, ms: a.ms, rss_mb: a.rssMB, episodes: a.res.recorded, rules: rules.length, patches: a.res.units.length - rules.length, candidates: a.res.candidates, proposal: a.res.proposal?.id ?? null, units: a.res.units.map(u => ({id: u.id, kind: u.kind, validation: u.credit.validation?.credit, holdout: u.credit.holdout?.credit})), rerun_ms: a2.ms, rerun_episodes: a2.res.recorded}
  printTable('exp matrix and exp ablate (scripted profiles, built-in benchmark)', rows)
  writeResults('matrix', {rows, results})
} finally {
  cleanup()
}
