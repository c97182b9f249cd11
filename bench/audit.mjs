// `npm run bench -- audit`: the A/A audit of the promotion gate (docs/loop.md, "Auditing the gate").
// `exp init --example onboarding`, `exp evolve --iterations 10` (real promotions, for the
// validation/held-out gap), then `exp audit-gate --trials N --json` with the default policy at
// noise 0.1 (the target: false-promotion rate <= 5%, upper 95% bound <= 10%), and for
// comparison at noise 0.02, with the default policy and with the version 1 policy exp shipped
// before (margins and regressions only, no statistical test).
// AUDIT_TRIALS=N changes the trials (default 200); AUDIT_QUICK=1 runs the first audit only.
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {tempRepo, cleanup, timeCommand, fmtMs, printTable, writeResults, BIN, pct, expJson} from './lib.mjs'

const TRIALS = Number(process.env.AUDIT_TRIALS ?? 200)

// the policy exp wrote before version 2: margins, regressions and held-out only
const V1 = `version: "1"
success: {must_improve: true, min_delta: 0, allow_neutral: true}
regressions: {max: 0}
tolerances: {violations: 0, tool_calls: 0.25, errors: 0.5, tokens: 0.25, latency_ms: 0.25, trajectory_length: 0.25}
holdout: {required: true, must_not_worsen: true, tolerance: 0}
evidence: {evaluators: [world], require_signed_evidence: false}
`

const rows = []
const results = {trials: TRIALS}
try {
  const repo = tempRepo('audit')
  await timeCommand(process.execPath, [BIN, 'init', '--example', 'onboarding'], {cwd: repo})
  const evo = await expJson(repo, ['evolve', '--iterations', '10', '--lane', 'bench'], 'evolve')
  results.evolve = {promoted: evo.res.promoted, holdout_after: evo.res.holdout_after, episodes: evo.res.episodes}
  writeFileSync(path.join(repo, '.git', 'v1-policy.yaml'), V1)
  const cases = [
    {name: 'default policy, noise 0.1', key: 'default_noise_0.1', args: ['--noise', '0.1'], target: true},
    ...(process.env.AUDIT_QUICK ? [] : [
      {name: 'default policy, noise 0.02', key: 'default_noise_0.02', args: ['--noise', '0.02']},
      {name: 'version 1 policy (no test), noise 0.02', key: 'v1_noise_0.02', args: ['--noise', '0.02', '--policy', '.git/v1-policy.yaml']},
    ]),
  ]
  for (const c of cases) {
    const r = await expJson(repo, ['audit-gate', '--trials', String(TRIALS), ...c.args], `audit-${c.key}`)
    const a = r.res
    rows.push({case: `exp audit-gate --trials ${TRIALS}: ${c.name}`, exp: `${a.promoted}/${a.trials} = ${pct(a.false_promotion_rate)} [${pct(a.interval.low)}, ${pct(a.interval.high)}], ${fmtMs(r.ms)}, ${a.episodes.total} episodes`, target: c.target ? '<= 5%, upper bound <= 10%' : '', ...(c.target ? {ok: a.false_promotion_rate <= 0.05 && a.interval.high <= 0.1} : {})})
    results[c.key] = {false_promotion_rate: a.false_promotion_rate, interval: a.interval, promoted: a.promoted, by_kind: a.by_kind, decided_by: a.decided_by, episodes: a.episodes, ms: r.ms}
    results.promotions = a.promotions
  }
  const p = results.promotions
  if (p?.count) rows.push({case: `validation gain vs held-out gain over the ${p.count} real promotion(s) of exp evolve`, exp: `${pct(p.mean_validation_gain)} vs ${pct(p.mean_holdout_gain)}: a gap of ${pct(p.mean_gap)}`, target: ''})
  printTable('exp audit-gate (null candidates through the whole promotion path, scripted agent with seeded slips)', rows)
  writeResults('audit', {rows, results})
} finally {
  cleanup()
}
