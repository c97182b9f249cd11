#!/usr/bin/env node
// The cost of trust (docs/trust.md), side by side with the work it checks.
// usage: npm run bench -- trust   [EXP_BASELINE_BIN=/path/to/old/bin/run.js for promote/gate before/after]
//
//   replay      replaying and re-grading 1,000 recorded verifications in fresh worlds
//               (target <= 1 s), beside running the same 1,000 episodes with the agent
//   promote     `exp promote` on the built-in example (full replay of its validation
//               evidence, held-out run), and `exp gate` on a one-line skill change;
//               with EXP_BASELINE_BIN the same commands of another build, alternated run
//               by run (target: no more than 1.5x the baseline)
import {execFileSync, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = rel => import(path.join(root, 'dist', rel))
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ms = x => `${x.toFixed(0)} ms`

async function replayBench() {
  const {loadScenarios} = await dist('scenarios/index.js')
  const {runEpisode} = await dist('evals/index.js')
  const {replayEpisode} = await dist('evals/evaluator/world.js')
  const {episodeDrafts} = await dist('evals/runner/records.js')
  const {loadAgent} = await dist('agents/registry.js')
  const scenarios = await loadScenarios(path.join(root, 'scenarios'))
  const agent = await loadAgent('scripted')
  const skill = {name: 'onboarding', content: fs.readFileSync(path.join(root, 'skills/onboarding/SKILL.md'), 'utf8')}
  const episodes = []
  const t0 = performance.now()
  for (let seed = 0; episodes.length < 1000; seed++) {
    for (const scenario of scenarios) {
      if (episodes.length >= 1000) break
      const r = await runEpisode({scenario, agent, skills: [skill], seed})
      const d = episodeDrafts(r, {manifest: 'mf-' + '0'.repeat(24), agent: {name: 'scripted'}, skill: {name: 'onboarding', blob: '0'.repeat(40)}, sealTask: scenario.split === 'holdout'})
      // through JSON, as a record read back from git is
      episodes.push({trace: JSON.parse(JSON.stringify(d.trace.body)), verification: JSON.parse(JSON.stringify(d.verification.body)), scenario})
    }
  }
  const ran = performance.now() - t0
  for (const e of episodes.slice(0, 200)) replayEpisode(e.trace, e.verification, e.scenario) // warm up
  const times = []
  for (let k = 0; k < 5; k++) {
    const t1 = performance.now()
    let bad = 0
    for (const e of episodes) if (!replayEpisode(e.trace, e.verification, e.scenario).ok) bad++
    times.push(performance.now() - t1)
    if (bad) throw new Error(`${bad} episodes did not replay`)
  }
  const actions = episodes.reduce((s, e) => s + e.trace.actions.length, 0)
  return {episodes: episodes.length, actions, replay_ms: median(times), replay_min_ms: Math.min(...times), run_with_agent_ms: ran, target_ms: 1000}
}

function run(bin, args, cwd) {
  const t0 = performance.now()
  const r = spawnSync(process.execPath, [bin, ...args], {cwd, encoding: 'utf8', env: {...process.env, EXP_LANE: 'bench'}})
  const t = performance.now() - t0
  if (r.status !== 0 && !(args[0] === 'gate' && r.status === 6)) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return {ms: t, stdout: r.stdout}
}

/** A repository with the example, train, mine, a proposal and its validation evaluation: what promote starts from. */
function prepared(bin) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-bench-trust-'))
  const git = (...a) => execFileSync('git', a, {cwd: dir, stdio: 'pipe'})
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'bench')
  git('config', 'user.email', 'bench@exp.invalid')
  run(bin, ['init', '--example', 'onboarding'], dir)
  run(bin, ['run', 'train', '--repeat', '2'], dir)
  run(bin, ['mine'], dir)
  const proposal = JSON.parse(run(bin, ['propose', 'onboarding', '--json'], dir).stdout).proposal
  run(bin, ['eval', proposal], dir)
  const skill = path.join(dir, 'skills/onboarding/SKILL.md')
  git('checkout', '-q', '-b', 'pr', 'main')
  fs.writeFileSync(skill, fs.readFileSync(skill, 'utf8').replace('## Failure handling', '7. Before `assign_device`, call `get_inventory` and only assign a model that is in stock.\n\n## Failure handling'))
  git('commit', '-qam', 'check stock')
  git('checkout', '-q', 'main')
  return {dir, proposal}
}

function commandBench(builds, rounds) {
  const out = Object.fromEntries(builds.map(([name]) => [name, {promote: [], gate: []}]))
  for (let i = 0; i < rounds; i++) {
    for (const [name, bin] of builds) {
      const p = prepared(bin)
      out[name].promote.push(run(bin, ['promote', p.proposal], p.dir).ms)
      out[name].gate.push(run(bin, ['gate', '--base', 'main', '--head', 'pr'], p.dir).ms)
      fs.rmSync(p.dir, {recursive: true, force: true})
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, {promote_ms: median(v.promote), gate_ms: median(v.gate), runs: v.promote.length}]))
}

const replay = await replayBench()
console.log(`replay + re-grade ${replay.episodes} verifications (${replay.actions} tool calls): ${ms(replay.replay_ms)} (min ${ms(replay.replay_min_ms)}); target <= ${replay.target_ms} ms: ${replay.replay_ms <= replay.target_ms ? 'yes' : 'NO'}`)
console.log(`  the same episodes run with the scripted agent and recorded: ${ms(replay.run_with_agent_ms)}`)
const builds = [['current', path.join(root, 'bin/run.js')], ...(process.env.EXP_BASELINE_BIN ? [['baseline', process.env.EXP_BASELINE_BIN]] : [])]
const cmds = commandBench(builds, Number(process.env.ROUNDS ?? 3))
for (const [name, c] of Object.entries(cmds)) console.log(`${name.padEnd(9)} exp promote ${ms(c.promote_ms)}, exp gate ${ms(c.gate_ms)} (median of ${c.runs})`)
if (cmds.baseline) {
  const r = {promote: cmds.current.promote_ms / cmds.baseline.promote_ms, gate: cmds.current.gate_ms / cmds.baseline.gate_ms}
  console.log(`ratio     promote ${r.promote.toFixed(2)}x, gate ${r.gate.toFixed(2)}x (target <= 1.5x): ${r.promote <= 1.5 && r.gate <= 1.5 ? 'yes' : 'NO'}`)
  cmds.ratio = r
}
fs.mkdirSync(path.join(root, 'bench/results'), {recursive: true})
fs.writeFileSync(path.join(root, 'bench/results/trust.json'), `${JSON.stringify({date: new Date().toISOString(), node: process.version, replay, commands: cmds}, null, 2)}\n`)
