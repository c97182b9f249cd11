import t from 'tap'
import {parse as parseYaml} from 'yaml'
import {afterPass, validationChecks, holdoutChecks, rulesOf, verdictOf} from '../../src/loop/policy.js'
import type {EvaluationBody, PromotionPolicy} from '../../src/records/types.js'
import type {Comparison} from '../../src/evals/compare.js'
import {assertResearchFile} from '../../src/records/index.js'
import {POLICY_YAML} from '../../src/research/templates.js'
import {evaluation} from '../helpers/loop.js'

const POLICY: PromotionPolicy = {version: '1', success: {must_improve: true, min_delta: 0}, regressions: {max: 0}, tolerances: {violations: 0, tool_calls: 0.25, tokens: 0.25, latency_ms: 0.25}, holdout: {required: true, must_not_worsen: true, tolerance: 0}}
const decide = (candidate: ReturnType<typeof evaluation>, baseline: ReturnType<typeof evaluation>, holdout?: [number, number]) => {
  const input = {candidate, baseline, ...(holdout ? {holdout: {baseline: evaluation(holdout[0]), candidate: evaluation(holdout[1])}} : {})}
  return verdictOf([...validationChecks(POLICY, input), ...holdoutChecks(POLICY, input)])
}

t.test('accepts an improvement with no regression, costs within tolerance and held-out no worse', async t => {
  const r = decide(evaluation(0.6, {tool_calls: 6}), evaluation(0.5), [0.5, 0.55])
  t.equal(r.verdict, 'accept', r.reasons.join('; '))
})

t.test('rejects a regression even when success improves', async t => {
  const r = decide(evaluation(0.7, {}, {regressions: [{scenario: 'val-a', invariants: ['escalated']}]}), evaluation(0.5), [0.5, 0.6])
  t.equal(r.verdict, 'reject')
  t.match(r.reasons.join('\n'), /regressions: 1 scenario\(s\) passed before and fail now \(allowed 0\): val-a/)
})

t.test('rejects tool-call bloat beyond the tolerance: it never collapses to one scalar', async t => {
  const r = decide(evaluation(0.8, {tool_calls: 5 * 1.3}), evaluation(0.5), [0.5, 0.7])
  t.equal(r.verdict, 'reject')
  t.match(r.reasons.join('\n'), /tool_calls within tolerance: 5 -> 6.50 \(allowed up to \+25%: 6.25\)/)
})

t.test('rejects no improvement, more violations, a worse or missing held-out', async t => {
  t.equal(decide(evaluation(0.5), evaluation(0.5), [0.5, 0.5]).verdict, 'reject', 'equal is not better')
  t.match(decide(evaluation(0.6, {violations: 0.3}), evaluation(0.5), [0.5, 0.5]).reasons.join(), /violations within tolerance/)
  t.match(decide(evaluation(0.6), evaluation(0.5), [0.6, 0.55]).reasons.join(), /held-out does not get worse: -5.0 points/)
  t.match(decide(evaluation(0.6), evaluation(0.5)).reasons.join(), /held-out evaluated: the held-out split has not been evaluated/)
})

t.test('the policy is data: loosened limits change the verdict', async t => {
  const loose: PromotionPolicy = {...POLICY, regressions: {max: 1}, tolerances: {tool_calls: 0.5}}
  const input = {candidate: evaluation(0.7, {tool_calls: 6.5}, {regressions: [{scenario: 'val-a', invariants: []}]}), baseline: evaluation(0.5), holdout: {baseline: evaluation(0.5), candidate: evaluation(0.6)}}
  t.equal(verdictOf([...validationChecks(loose, input), ...holdoutChecks(loose, input)]).verdict, 'accept')
})

// Version 2: statistical rules. Each test gives a candidate that passes the success margin
// (and everything else) but not the one rule, which must be named in the reject.
const V2: PromotionPolicy = {version: '2', success: {must_improve: true, min_delta: 0}, require: {max_regressions: 0}, holdout: {required: false}}
const perScenario = (runs: number, passes: number[]) => passes.map((p, i) => ({scenario: `val-${i}`, runs, passes: p, invalid: 0, failed_invariants: [], verifications: []}))
const improving = (over: Partial<Comparison> = {}, body: Partial<EvaluationBody> = {}) => ({...evaluation(0.6, {}, {wins: 6, losses: 1, ties: 41, bootstrap_ci: [0.02, 0.2], ...over}), ...body})
const judge = (policy: PromotionPolicy, candidate: ReturnType<typeof evaluation>) => verdictOf(validationChecks(policy, {candidate, baseline: evaluation(0.5)}))

t.test('a version 1 policy is read as before; version 2 rules are named when they reject', async t => {
  t.equal(judge({version: '1', regressions: {max: 0}, holdout: {required: false}}, improving()).verdict, 'accept', 'v1: margin and regressions only')
  t.equal(judge(V2, improving()).verdict, 'accept', 'v2 without statistical rules: the same')
  t.equal(rulesOf({version: '1', regressions: {max: 2}}).maxRegressions, 2)
  t.equal(rulesOf({version: '2', require: {max_regressions: 1}}).regressionsRule, 'require.max_regressions')
})

t.test('mcnemar_p_max: a gain of 2 wins to 0 passes the margin but not the test', async t => {
  const r = judge({...V2, require: {mcnemar_p_max: 0.05}}, improving({wins: 2, losses: 0, ties: 46}))
  t.equal(r.verdict, 'reject')
  t.equal(r.decidedBy?.name, 'mcnemar_p_max')
  t.equal(r.decidedBy?.rule, 'require.mcnemar_p_max')
  t.match(r.reasons.join('\n'), /mcnemar_p_max: one-sided exact McNemar p = 0\.2500 \(2 win\(s\), 0 loss\(es\)\), needs <= 0\.0500 \(a fixed-size evaluation\)/)
  t.match(r.decidedBy?.values, {p: 0.25, level: 0.05, wins: 2, losses: 0})
  const ok = judge({...V2, require: {mcnemar_p_max: 0.05}}, improving({wins: 6, losses: 0}))
  t.equal(ok.verdict, 'accept')
  t.equal(ok.decidedBy?.name, 'mcnemar_p_max', 'an accept names the test that let it through')
})

t.test('mcnemar_p_max with a sequential design: each pass is held to its share of the error', async t => {
  const seq: PromotionPolicy = {...V2, require: {mcnemar_p_max: 0.05}, sequential: {looks: 3, spending: 'pocock'}}
  // 6 wins to 0: p = 1/64 = 0.0156; pass 1 may spend 0.0226, pass 3 only 0.0118
  const at = (look: number) => improving({wins: 6, losses: 0}, {per_scenario: perScenario(look, Array(16).fill(look))})
  t.equal(judge(seq, at(1)).verdict, 'accept', 'enough at the first pass')
  const late = judge(seq, at(3))
  t.equal(late.verdict, 'reject', 'not enough at the last pass: the earlier passes spent their share')
  t.match(late.reasons.join('\n'), /needs <= 0\.0118 \(at pass 3 of 3, pocock spending of 0\.05\)/)
  t.match(late.decidedBy?.values, {look: 3, looks: 3})
})

t.test('bootstrap_ci_low_min: an interval that reaches below the bound rejects', async t => {
  const r = judge({...V2, require: {bootstrap_ci_low_min: 0}}, improving({bootstrap_ci: [-0.05, 0.3]}))
  t.equal(r.verdict, 'reject')
  t.equal(r.decidedBy?.name, 'bootstrap_ci_low_min')
  t.match(r.reasons.join('\n'), /bootstrap_ci_low_min: paired bootstrap interval of the difference \[-5\.0%, 30\.0%\], its lower bound needs >= 0\.0%/)
})

t.test('pass_k: every repetition of a scenario must pass often enough, and k runs must exist', async t => {
  const policy = {...V2, require: {pass_k: {k: 2, min: 0.8}}}
  const flaky = judge(policy, improving({}, {per_scenario: perScenario(2, [2, 2, 1, 1, 2, 2, 2, 2])}))
  t.equal(flaky.verdict, 'reject')
  t.equal(flaky.decidedBy?.name, 'pass_k')
  t.match(flaky.reasons.join('\n'), /candidate pass\^2 = 75\.0%, needs >= 80\.0%/)
  const short = judge(policy, improving({}, {per_scenario: perScenario(1, [1, 1, 1])}))
  t.match(short.reasons.join('\n'), /pass\^2 needs 2 valid run\(s\) of every scenario; the candidate has 1 pass/)
  t.equal(judge(policy, improving({}, {per_scenario: perScenario(2, [2, 2, 2, 1, 2])})).verdict, 'accept')
})

t.test('min_paired_n: too few pairs reject, whatever the gain', async t => {
  const r = judge({...V2, require: {min_paired_n: 32}}, improving({wins: 6, losses: 0, ties: 10}))
  t.equal(r.verdict, 'reject')
  t.equal(r.decidedBy?.name, 'min_paired_n')
  t.match(r.reasons.join('\n'), /min_paired_n: 16 paired episode\(s\) with both sides valid, needs >= 32/)
})

t.test('max_regressions: one regression over the limit rejects, named with its rule', async t => {
  const r = judge({...V2, require: {max_regressions: 0}}, improving({regressions: [{scenario: 'val-3', invariants: ['escalated']}]}))
  t.equal(r.verdict, 'reject')
  t.match(r.decidedBy, {name: 'regressions', rule: 'require.max_regressions', values: {regressions: 1, max: 0}})
  t.equal(judge({...V2, require: {max_regressions: 1}}, improving({regressions: [{scenario: 'val-3', invariants: ['escalated']}]})).verdict, 'accept')
})

// Found by an attack sweep: an invalid episode (an agent error, the step limit) counts in no
// rate and no pair, so a skill telling an LLM agent to give up where it would fail passed the
// gate with fewer tasks solved (validation 69 -> 55 passed, 48 invalid, shown as 46% -> 54%).
t.test('max_invalid_increase: a candidate with more episodes without a verdict rejects, on validation and on held-out', async t => {
  const policy: PromotionPolicy = {...V2, require: {max_regressions: 0, max_invalid_increase: 0}}
  // 16 of 32 failures became invalid: the valid rate reads 0.6 -> 0.75
  const gaveUp = {...improving({}, {total: 32, passed: 12, failed: 4, invalid: 16, success_rate: 0.75})}
  const r = judge(policy, gaveUp)
  t.equal(r.verdict, 'reject')
  t.match(r.decidedBy, {name: 'invalid episodes', rule: 'require.max_invalid_increase', values: {baseline: 0, candidate: 16, max_increase: 0}})
  t.match(r.reasons.join('\n'), /0 of 32 -> 16 of 32 episode\(s\) without a verdict/)
  t.equal(judge({...policy, require: {max_regressions: 0, max_invalid_increase: 16}}, gaveUp).verdict, 'accept', 'a looser limit lets it through')
  t.equal(judge(V2, gaveUp).verdict, 'accept', 'a policy without the rule decides as before (decisions under it still stand)')
  // on held-out too
  const held = {baseline: evaluation(0.5), candidate: {...evaluation(0.6), invalid: 3, total: 32}}
  const checks = holdoutChecks({...policy, holdout: {required: true, must_not_worsen: true, tolerance: 0}}, {candidate: improving(), baseline: evaluation(0.5), holdout: held})
  t.match(checks.find(c => !c.passed), {name: 'held-out invalid episodes', rule: 'require.max_invalid_increase'})
  // the default policy of exp init has it
  t.equal((parseYaml(POLICY_YAML) as PromotionPolicy).require?.max_invalid_increase, 0)
})

t.test('the policy file: version 2 rules need version 2, and version 2 has no regressions block', async t => {
  t.throws(() => assertResearchFile('policy', {version: '1', require: {mcnemar_p_max: 0.05}}), {code: 'E_SCHEMA', data: {problems: [{path: 'require', message: /not allowed in this version/}]}})
  t.throws(() => assertResearchFile('policy', {version: '2', regressions: {max: 0}}), {code: 'E_SCHEMA', data: {problems: [{path: 'regressions'}]}})
  t.throws(() => assertResearchFile('policy', {version: '2', require: {mcnemar_p_max: 1.5}}), {code: 'E_SCHEMA'})
  t.throws(() => assertResearchFile('policy', {version: '2', sequential: {looks: 3, spending: 'bonferroni'}}), {code: 'E_SCHEMA'})
  t.doesNotThrow(() => assertResearchFile('policy', parseYaml(POLICY_YAML)), 'the default policy validates')
  t.equal((parseYaml(POLICY_YAML) as PromotionPolicy).version, '2', 'and is version 2')
})

t.test('after a pass: stop when it passes, when it is futile, or at the last pass; else go on', async t => {
  const seq: PromotionPolicy = {...V2, require: {mcnemar_p_max: 0.05, max_regressions: 0}, sequential: {looks: 3, spending: 'pocock'}}
  const at = (look: number, over: Partial<Comparison>) => ({candidate: improving(over, {per_scenario: perScenario(look, Array(16).fill(look))}), baseline: evaluation(0.5)})
  t.match(afterPass(seq, at(1, {wins: 6, losses: 0}), {look: 1, scenarios: 16}), {stop: true, why: /every validation check passes/})
  t.match(afterPass(seq, at(1, {wins: 3, losses: 0}), {look: 1, scenarios: 16}), {stop: false})
  t.match(afterPass(seq, at(1, {wins: 1, losses: 1}), {look: 1, scenarios: 16}), {stop: true, why: /futile: not ahead/})
  t.match(afterPass(seq, at(1, {wins: 3, losses: 0, regressions: [{scenario: 'x', invariants: []}]}), {look: 1, scenarios: 16}), {stop: true, why: /futile: 1 regression/})
  t.match(afterPass(seq, at(3, {wins: 3, losses: 0}), {look: 3, scenarios: 16}), {stop: true, why: /last pass/})
  // 2 scenarios per pass: 1 win to 0 after pass 1 cannot reach 7 wins by pass 3
  t.match(afterPass(seq, at(1, {wins: 1, losses: 0}), {look: 1, scenarios: 2}), {stop: true, why: /even winning every remaining pair/})
  // without the McNemar rule, no early accept: every pass is run
  const plain: PromotionPolicy = {...V2, sequential: {looks: 3}}
  t.match(afterPass(plain, at(1, {wins: 6, losses: 0}), {look: 1, scenarios: 16}), {stop: false})
})

t.test('allow_neutral: an approved change that is not worse passes the tests of improvement too, and says so', async t => {
  const policy: PromotionPolicy = {...V2, success: {must_improve: true, min_delta: 0, allow_neutral: true}, require: {mcnemar_p_max: 0.05, bootstrap_ci_low_min: 0.01, max_regressions: 0}}
  const same = evaluation(0.5, {}, {wins: 0, losses: 0, ties: 48, bootstrap_ci: [0, 0]})
  const unapproved = verdictOf(validationChecks(policy, {candidate: same, baseline: evaluation(0.5)}))
  t.equal(unapproved.verdict, 'reject')
  t.match(unapproved.reasons.join('\n'), /mcnemar_p_max: .*; not worse: an approving review would waive it \(allow_neutral\)/)
  const approved = verdictOf(validationChecks(policy, {candidate: same, baseline: evaluation(0.5), approvedBy: 'alice'}))
  t.equal(approved.verdict, 'accept')
  t.match(approved.reasons.join('\n'), /mcnemar_p_max: .*waived: not worse, approved by alice/)
  t.equal(approved.decidedBy?.rule, 'success.allow_neutral', 'the approval decided')
  // worse is never waived, and the rules that are not about improvement still hold
  t.equal(verdictOf(validationChecks(policy, {candidate: evaluation(0.45, {}, {wins: 0, losses: 2}), baseline: evaluation(0.5), approvedBy: 'alice'})).verdict, 'reject')
  const regressed = verdictOf(validationChecks(policy, {candidate: evaluation(0.5, {}, {wins: 1, losses: 1, regressions: [{scenario: 'val-1', invariants: []}]}), baseline: evaluation(0.5), approvedBy: 'alice'}))
  t.equal(regressed.decidedBy?.name, 'regressions')
})

// Found by a new user: a committed policy.yaml with a syntax error stopped `exp promote` and
// `exp eval` with yaml's own words, no file named, and a hint to report a bug
t.test('a committed policy.yaml that does not parse: an error naming the commit, file, line and column', async t => {
  const {GitRecordStore} = await import('../../src/store/index.js')
  const {GitWorkspace} = await import('../../src/workspace/git.js')
  const {loadPolicy} = await import('../../src/loop/promote.js')
  const {makeRepo, git} = await import('../helpers/repo.js')
  const fs = await import('node:fs')
  const path = await import('node:path')
  const repo = await makeRepo(t)
  fs.mkdirSync(path.join(repo, '.research'), {recursive: true})
  fs.writeFileSync(path.join(repo, '.research/policy.yaml'), `${POLICY_YAML}foo: {\n`)
  await git(repo, 'add', '.research/policy.yaml')
  await git(repo, 'commit', '-qm', 'a broken policy')
  const head = (await git(repo, 'rev-parse', 'HEAD')).trim()
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const e = (await loadPolicy(new GitWorkspace(store), head).then(
    () => undefined,
    (x: unknown) => x,
  )) as {code: string; message: string; hint?: string}
  t.match(e, {code: 'E_PARSE'})
  t.match(e.message, new RegExp(`^${head.slice(0, 12)}:\\.research/policy\\.yaml:\\d+:\\d+: `))
  t.match(e.hint, /fix the syntax/)
  // an alias bomb is refused by name too
  fs.writeFileSync(path.join(repo, '.research/policy.yaml'), `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n`)
  await git(repo, 'commit', '-qam', 'a bomb')
  const bomb = await loadPolicy(new GitWorkspace(store), (await git(repo, 'rev-parse', 'HEAD')).trim()).catch((x: unknown) => x as Error)
  t.match(bomb, {code: 'E_PARSE', message: /policy\.yaml: too many YAML alias expansions/})
})
