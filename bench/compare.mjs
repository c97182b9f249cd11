// `npm run bench -- compare`: `exp compare` at its default budget with the scripted agent
// (four arms, 1,500 episodes each at most, held-out repeat 3), end to end through the CLI:
// wall time (target <= 3 minutes), peak RSS, episodes per arm, held-out success per arm and
// H1-H3; then the same command again (the resume: nothing recorded, the same answer); then
// `exp gain` at its default budget in a fresh repository.
// The reference column is git itself walking the history the arms wrote.
import {tempRepo, cleanup, git, timeCommand, fmtMs, printTable, writeResults, BIN, pct, expJson} from './lib.mjs'

const rows = []
const results = {}
try {
  const repo = tempRepo('compare')
  await timeCommand(process.execPath, [BIN, 'init', '--example', 'onboarding'], {cwd: repo})
  const r = await expJson(repo, ['compare'], 'compare')
  const res = r.res
  const episodes = res.arms.reduce((n, a) => n + a.episodes, 0)
  const nat = await timeCommand('git', ['log', '--all', '--raw', '--no-abbrev', '--format=%H'], {cwd: repo})
  const commits = Number(git(repo, ['rev-list', '--all', '--count']).toString().trim())
  rows.push({case: 'exp compare, default budget, scripted agent (CLI end to end)', exp: `${fmtMs(r.ms)}, ${episodes} episodes in 4 arms`, native: `${fmtMs(nat.ms)} git log --all --raw (${commits} commits)`, rss: `${r.rssMB.toFixed(0)} MB`, target: '<= 3 min', ok: r.ms <= 180_000})
  for (const a of res.arms) rows.push({case: `  ${a.arm} (${a.mode})`, exp: `held-out ${pct(a.success)} [${pct(a.ci[0])}, ${pct(a.ci[1])}], ${a.episodes} episodes${a.promoted !== undefined ? `, promoted ${a.promoted}` : ''}`, target: ''})
  for (const h of res.hypotheses) rows.push({case: `  ${h.id}`, exp: h.verdict, target: ''})
  const before = Number(git(repo, ['rev-list', '--all', '--count']).toString().trim())
  const again = await expJson(repo, ['compare'], 'compare-again')
  const after = Number(git(repo, ['rev-list', '--all', '--count']).toString().trim())
  const same = JSON.stringify(again.res) === JSON.stringify(res)
  rows.push({case: 'the same command again (resume of a finished compare)', exp: `${fmtMs(again.ms)}, ${after - before} new commits, ${same ? 'the same answer' : 'A DIFFERENT ANSWER'}`, target: 'nothing recorded', ok: after === before && same})
  results.compare = {ms: r.ms, rss_mb: r.rssMB, episodes, commits, arms: res.arms.map(a => ({arm: a.arm, mode: a.mode, success: a.success, ci: a.ci, episodes: a.episodes, promoted: a.promoted ?? null})), hypotheses: res.hypotheses.map(h => ({id: h.id, verdict: h.verdict})), pairs: res.pairs.map(p => ({a: p.a, b: p.b, diff: p.diff, mcnemar_p: p.mcnemar_p}))}
  results.resume = {ms: again.ms, new_commits: after - before, same}
  const grepo = tempRepo('gain')
  await timeCommand(process.execPath, [BIN, 'init', '--example', 'onboarding'], {cwd: grepo})
  const g = await expJson(grepo, ['gain'], 'gain')
  const rate = x => (x === null ? 'n/a' : pct(x))
  rows.push({case: 'exp gain, default budget (closed_loop vs off)', exp: `${fmtMs(g.ms)}, gain ${(g.res.gain * 100).toFixed(1)} points [${(g.res.ci[0] * 100).toFixed(1)}, ${(g.res.ci[1] * 100).toFixed(1)}], McNemar p ${g.res.mcnemar_p < 0.0001 ? "< 0.0001" : g.res.mcnemar_p.toFixed(4)}`, rss: `${g.rssMB.toFixed(0)} MB`, target: ''})
  rows.push({case: '  repeated-failure rate, closed_loop vs off', exp: `${rate(g.res.closed_loop.metrics.repeated_failure_rate)} vs ${rate(g.res.off.metrics.repeated_failure_rate)} (${g.res.closed_loop.metrics.train_runs} train runs each)`, target: ''})
  results.gain = {ms: g.ms, rss_mb: g.rssMB, gain: g.res.gain, ci: g.res.ci, mcnemar_p: g.res.mcnemar_p, closed_loop: {success: g.res.closed_loop.success, metrics: g.res.closed_loop.metrics}, off: {success: g.res.off.success, metrics: g.res.off.metrics}}
  printTable('exp compare (scripted agent, built-in benchmark)', rows)
  writeResults('compare', {rows, results})
} finally {
  cleanup()
}
