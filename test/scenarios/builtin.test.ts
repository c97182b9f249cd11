import t from 'tap'
import {CLASS_TAGS, formatProblem, groupScenarios, lintScenarios, listScenarios, replayGold} from '../../src/scenarios/index.js'
import {builtinScenarios, SCENARIO_DIR} from '../helpers/scenarios.js'

const scenarios = await builtinScenarios()
const splits = ['train', 'validation', 'holdout'] as const

t.test('every built-in scenario lints clean, which includes replaying its gold trajectory through the grader', async t => {
  const report = await lintScenarios(SCENARIO_DIR)
  t.same(report.problems.map(formatProblem), [])
  t.equal(report.scenarios, report.files)
  for (const s of scenarios) t.ok(replayGold(s).verdict.passed, s.id)
})

t.test('the set has at least 90 scenarios: 45 train, 20 validation and 20 holdout', async t => {
  const n = (split: string) => scenarios.filter(s => s.split === split).length
  t.ok(n('train') >= 45 && n('validation') >= 20 && n('holdout') >= 20, `${n('train')}/${n('validation')}/${n('holdout')}`)
  t.ok(scenarios.length >= 90, `${scenarios.length} scenarios`)
})

t.test('every new fact of the world is used by train, validation and held-out scenarios', async t => {
  const uses = (s: (typeof scenarios)[number], re: RegExp) => re.test(JSON.stringify(s))
  const facts: [string, RegExp][] = [
    ['contractors', /"contractor"/], ['leave and delegates', /leave"?:/], ['a refusal', /"denials"/],
    ['exactly one of / none of', /"(exactly_one_of|none_of)"/], ['order in time', /"order"/], ['several people', /"several-people"/],
  ]
  for (const [what, re] of facts) for (const split of splits) t.ok(scenarios.some(s => s.split === split && uses(s, re)), `${split} uses ${what}`)
})

t.test('each of the seven classes appears in every split', async t => {
  for (const split of splits) {
    for (const tag of CLASS_TAGS) t.ok(scenarios.some(s => s.split === split && s.workflows.includes(tag)), `${split} has ${tag}`)
  }
})

t.test('holdout scenarios combine classes in ways no train scenario does', async t => {
  const key = (tags: string[]) => [...tags].sort().join('+')
  const train = new Set(scenarios.filter(s => s.split === 'train').map(s => key(s.workflows)))
  for (const s of scenarios.filter(s => s.split === 'holdout')) t.notOk(train.has(key(s.workflows)), `${s.id}: ${key(s.workflows)}`)
})

t.test('scenario ids are unique and every task reads like a request, not like a test', async t => {
  t.equal(new Set(scenarios.map(s => s.id)).size, scenarios.length)
  for (const s of scenarios) t.notMatch(s.task, /invariant|scenario|gold|grader/i, s.id)
})

t.test('scenarios are grouped by split, then by tag', async t => {
  const g = groupScenarios(scenarios)
  t.same(Object.keys(g.groups), ['train', 'validation', 'holdout'])
  t.ok(g.groups.train!.onboarding!.includes('train-onboard-engineer'))
  t.ok(g.groups.holdout!.shortage!.includes('hold-shortage-approval-onboard'))
  t.equal(g.scenarios.length, scenarios.length)
})

t.test('filters by split and by tag', async t => {
  const l = await listScenarios(SCENARIO_DIR, {split: 'validation', tag: 'duplicates'})
  t.same(l.scenarios.map(s => s.id), ['val-ticket-github-duplicate', 'val-ticket-reuse-other-words'])
  t.same(l.groups, {validation: {duplicates: ['val-ticket-github-duplicate', 'val-ticket-reuse-other-words'], tickets: ['val-ticket-github-duplicate', 'val-ticket-reuse-other-words']}})
  t.same(l.problems, [])
})
