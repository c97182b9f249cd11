// `npm run bench -- fresh`: the generalization check. `exp evolve --iterations 10` (defaults) on
// the built-in example, then the scripted agent (noise 0, 20 repetitions, paired seeds) on the
// built-in held-out split and on test/fixtures/scenarios-fresh — scenarios written from
// docs/scenarios.md alone, which the loop never reads — with the initial, the evolved and the
// expert skill. Targets: fresh evolved - initial >= 25 points with no control scenario getting
// worse; built-in held-out: evolved >= 95%, initial 30-60%.
import {closeSync, openSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {ROOT, tempRepo, cleanup, git, timeCommand, fmtMs, printTable, writeResults} from './lib.mjs'

const BIN = path.join(ROOT, 'bin/run.js')
const REPS = 20
const pct = x => `${(x * 100).toFixed(1)}%`
const {loadScenarios} = await import(path.join(ROOT, 'dist/scenarios/index.js'))
const {runSplit} = await import(path.join(ROOT, 'dist/evals/split.js'))
const {ScriptedAgent} = await import(path.join(ROOT, 'dist/agents/scripted/index.js'))
const agent = new ScriptedAgent()
const skill = content => ({name: 'onboarding', content})
async function rates(content, scenarios, split) {
  const r = await runSplit(scenarios, {agent, skills: [skill(content)], repetitions: REPS, seed: 1, ...(split ? {split} : {})})
  return {rate: r.rate, by: Object.fromEntries(Object.entries(r.byScenario).map(([id, s]) => [id, s.passed / s.episodes]))}
}

const rows = []
const results = {}
try {
  const repo = tempRepo('fresh')
  await timeCommand(process.execPath, [BIN, 'init', '--example', 'onboarding'], {cwd: repo})
  const file = path.join(repo, '.git/evolve.json')
  const fd = openSync(file, 'w')
  const run = await timeCommand(process.execPath, [BIN, 'evolve', '--iterations', '10', '--json'], {cwd: repo, stdout: fd})
  closeSync(fd)
  const ev = JSON.parse(readFileSync(file, 'utf8'))
  const skills = {
    initial: readFileSync(path.join(ROOT, 'skills/onboarding/SKILL.md'), 'utf8'),
    evolved: git(repo, ['show', 'main:skills/onboarding/SKILL.md']).toString(),
    expert: readFileSync(path.join(ROOT, 'test/fixtures/skills/onboarding-expert/SKILL.md'), 'utf8'),
  }
  const builtin = await loadScenarios(path.join(ROOT, 'scenarios'))
  const fresh = await loadScenarios(path.join(ROOT, 'test/fixtures/scenarios-fresh'))
  const controls = fresh.filter(s => s.workflows.includes('control')).map(s => s.id)
  const r = {}
  for (const [name, content] of Object.entries(skills)) r[name] = {holdout: await rates(content, builtin, 'holdout'), fresh: await rates(content, fresh)}
  const regressed = controls.filter(id => r.evolved.fresh.by[id] < r.initial.fresh.by[id])
  rows.push({case: 'exp evolve --iterations 10 (defaults)', exp: `${fmtMs(run.ms)}, ${ev.episodes} episodes, promoted ${ev.promoted}, rejected ${ev.rejected}`, target: ''})
  rows.push({case: `built-in held-out (${builtin.filter(s => s.split === 'holdout').length} x ${REPS}): initial / evolved / expert`, exp: `${pct(r.initial.holdout.rate)} / ${pct(r.evolved.holdout.rate)} / ${pct(r.expert.holdout.rate)}`, target: 'initial 30-60%, evolved >= 95%', ok: r.initial.holdout.rate >= 0.3 && r.initial.holdout.rate <= 0.6 && r.evolved.holdout.rate >= 0.95})
  rows.push({case: `fresh set (${fresh.length} x ${REPS}): initial / evolved / expert`, exp: `${pct(r.initial.fresh.rate)} / ${pct(r.evolved.fresh.rate)} / ${pct(r.expert.fresh.rate)}`, target: 'evolved - initial >= 25 points', ok: r.evolved.fresh.rate - r.initial.fresh.rate >= 0.25})
  rows.push({case: `fresh control scenarios (${controls.length}) that got worse`, exp: regressed.length ? regressed.join(', ') : 'none', target: 'none', ok: regressed.length === 0})
  results.evolve = {ms: run.ms, episodes: ev.episodes, promoted: ev.promoted, rejected: ev.rejected, holdout_before: ev.holdout_before, holdout_after: ev.holdout_after}
  results.skills = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, {holdout: v.holdout.rate, fresh: v.fresh.rate, fresh_by_scenario: v.fresh.by}]))
  results.evolved_skill = skills.evolved
  printTable('generalization: the fresh set the loop never reads (scripted agent, noise 0)', rows)
  writeResults('fresh', {rows, results})
} finally {
  cleanup()
}
