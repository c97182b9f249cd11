// `npm run bench -- evolve`: the main job end to end. `exp init --example onboarding` then
// `exp evolve --iterations 10` (scripted agent, defaults): wall time, episodes used, episodes
// to first reach 85% held-out (target <= 1,500), held-out before/after, peak RSS; then two
// leaderless lanes (`--lane a` and `--lane b`, 5 iterations each) at once on one repository.
// The reference column is git itself walking the history the loop wrote.
import {closeSync, openSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {ROOT, tempRepo, cleanup, git, timeCommand, fmtMs, printTable, writeResults} from './lib.mjs'

const BIN = path.join(ROOT, 'bin/run.js')
const pct = x => `${(x * 100).toFixed(1)}%`
/** Run exp with --json, stdout to a file: wall time, peak RSS and the parsed answer. */
async function expJson(cwd, args, name) {
  const file = path.join(cwd, `.git/${name}.json`)
  const fd = openSync(file, 'w')
  try {
    const r = await timeCommand(process.execPath, [BIN, ...args, '--json'], {cwd, stdout: fd})
    return {...r, res: JSON.parse(readFileSync(file, 'utf8'))}
  } finally {
    closeSync(fd)
  }
}

const rows = []
const results = {}
try {
  const repo = tempRepo('evolve')
  await timeCommand(process.execPath, [BIN, 'init', '--example', 'onboarding'], {cwd: repo})
  const r = await expJson(repo, ['evolve', '--iterations', '10'], 'evolve')
  const res = r.res
  const nat = await timeCommand('git', ['log', '--all', '--raw', '--no-abbrev', '--format=%H'], {cwd: repo})
  const commits = Number(git(repo, ['rev-list', '--all', '--count']).toString().trim())
  rows.push({case: 'exp evolve --iterations 10 (built-in benchmark, CLI end to end)', exp: `${fmtMs(r.ms)}, ${res.episodes} episodes`, native: `${fmtMs(nat.ms)} git log --all --raw (${commits} commits)`, rss: `${r.rssMB.toFixed(0)} MB`, target: ''})
  rows.push({case: 'held-out success, before -> after', exp: `${pct(res.holdout_before)} -> ${pct(res.holdout_after)} (promoted ${res.promoted}, rejected ${res.rejected})`, target: '+30 points', ok: res.holdout_after - res.holdout_before >= 0.3})
  const reached = res.reached_85?.episodes
  rows.push({case: 'episodes to first reach 85% held-out', exp: reached === undefined ? 'not reached' : `${reached} (iteration ${res.reached_85.iteration})`, target: '<= 1,500 episodes', ok: reached !== undefined && reached <= 1500})
  results.single = {ms: r.ms, rss_mb: r.rssMB, episodes: res.episodes, holdout_before: res.holdout_before, holdout_after: res.holdout_after, promoted: res.promoted, rejected: res.rejected, reached_85: res.reached_85 ?? null, commits}

  const lanes = tempRepo('lanes')
  await timeCommand(process.execPath, [BIN, 'init', '--example', 'onboarding'], {cwd: lanes})
  const t0 = performance.now()
  const [a, b] = await Promise.all(['a', 'b'].map(l => expJson(lanes, ['evolve', '--iterations', '5', '--lane', l], `lane-${l}`)))
  const wall = performance.now() - t0
  const [ra, rb] = [a.res, b.res]
  const main = Number(git(lanes, ['rev-list', '--first-parent', '--merges', '--count', 'main']).toString().trim())
  rows.push({case: 'two lanes at once (exp evolve -n 5 --lane a / --lane b)', exp: `${fmtMs(wall)}, ${ra.episodes + rb.episodes} episodes, ${main} promotions on main`, rss: `${Math.max(a.rssMB, b.rssMB).toFixed(0)} MB each`, target: ''})
  rows.push({case: 'two lanes: held-out of main at the end', exp: `${pct(Math.max(ra.holdout_after, rb.holdout_after))} (a: promoted ${ra.promoted}, rejected ${ra.rejected}; b: promoted ${rb.promoted}, rejected ${rb.rejected})`, target: ''})
  results.lanes = {ms: wall, episodes: ra.episodes + rb.episodes, promotions: main, a: {promoted: ra.promoted, rejected: ra.rejected, holdout_after: ra.holdout_after}, b: {promoted: rb.promoted, rejected: rb.rejected, holdout_after: rb.holdout_after}}
  printTable('exp evolve (scripted agent, built-in benchmark)', rows)
  writeResults('evolve', {rows, results})
} finally {
  cleanup()
}
