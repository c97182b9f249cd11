import t from 'tap'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {checkExploreRate, exploreSkills, exploreText} from '../../../src/evals/runner/explore.js'
import {parseRules} from '../../../src/knowledge/index.js'
import {ROOT} from '../../helpers/cli.js'

const EXPERT = readFileSync(path.join(ROOT, 'test/fixtures/skills/onboarding-expert/SKILL.md'), 'utf8')
const RULES = parseRules(EXPERT).length

t.test('exploration leaves out rule lines only, the same ones for the same run, about as often as the rate says', async t => {
  t.ok(RULES >= 10, 'the expert skill has rules to leave out')
  const prose = EXPERT.split('\n').filter(l => l.trim() && !parseRules(l).length)
  let dropped = 0
  let runs = 0
  const seen = new Set<string>()
  const wrong: string[] = []
  for (let rep = 0; rep < 200; rep++) {
    const x = exploreText(EXPERT, 0.3, [42, 'train-x', rep])
    if (JSON.stringify(exploreText(EXPERT, 0.3, [42, 'train-x', rep])) !== JSON.stringify(x)) wrong.push(`run ${rep}: another text the second time`)
    for (const l of prose) if (!x.content.includes(l)) wrong.push(`run ${rep}: a prose line was left out: ${l}`)
    if (parseRules(x.content).length !== RULES - x.dropped.length) wrong.push(`run ${rep}: not exactly the dropped lines are gone`)
    for (const n of x.dropped) if (parseRules(EXPERT.split('\n')[n - 1]!).length !== 1) wrong.push(`run ${rep}: line ${n} is not a rule`)
    dropped += x.dropped.length
    runs++
    seen.add(x.dropped.join(','))
  }
  t.same(wrong, [], 'the same run reads the same text; only rule lines, exactly those named, are left out')
  const share = dropped / (runs * RULES)
  t.ok(share > 0.25 && share < 0.35, `share of rule lines left out ${share.toFixed(3)} is near 0.3`)
  t.ok(seen.size > 100, 'runs differ in what they leave out')
  t.same(exploreText(EXPERT, 0, [42, 'train-x', 0]), {content: EXPERT, dropped: []}, 'rate 0: the skill as it is')
  t.not(exploreText(EXPERT, 0.3, [43, 'train-x', 0]).dropped.join(), exploreText(EXPERT, 0.3, [42, 'train-x', 0]).dropped.join(), 'another seed, another choice (for this pair of seeds)')
})

t.test('only the skill is explored; the recalled knowledge and a run without exploration read everything', async t => {
  const skills = [{name: 'onboarding', content: EXPERT}, {name: 'recalled-knowledge', content: EXPERT}]
  const none = exploreSkills(skills, undefined, [1, 's', 0])
  t.same(none, {skills}, 'no exploration: nothing dropped, nothing said')
  const xs = Array.from({length: 20}, (_, rep) => exploreSkills(skills, {rate: 0.5}, [1, 's', rep]))
  t.ok(xs.every(x => x.skills[1]!.content === EXPERT), 'the recall is whole')
  t.ok(xs.every(x => parseRules(x.skills[0]!.content).length === RULES - x.dropped!.length), 'the skill lost exactly the lines named')
})

t.test('the rate must be a probability below 1', async t => {
  t.equal(checkExploreRate(0), 0)
  t.equal(checkExploreRate(0.3), 0.3)
  t.equal(checkExploreRate('0.25'), 0.25, 'the text of a flag')
  for (const bad of [1, 1.5, -0.1, Number.NaN, '', 'often', '1e400']) t.throws(() => checkExploreRate(bad), {code: 'E_USAGE', message: /--explore must be a number in \[0, 1\)/})
})

t.test('a training run with exploration: pinned by its manifest, each trace names the lines its agent did not read; other splits refuse it', async t => {
  const {cpSync} = await import('node:fs')
  const {GitRecordStore} = await import('../../../src/store/index.js')
  const {runEvaluation} = await import('../../../src/evals/runner/run.js')
  const {benchmarkRepo, runOpts} = await import('../../helpers/research.js')
  const repo = await benchmarkRepo(t)
  cpSync(path.join(ROOT, 'test/fixtures/skills/onboarding-expert'), path.join(repo, 'skills/onboarding-expert'), {recursive: true})
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const plain = await runEvaluation(store, runOpts(repo, {split: 'train', skill: 'skills/onboarding-expert'}))
  const explored = await runEvaluation(store, runOpts(repo, {split: 'train', skill: 'skills/onboarding-expert', explore: {rate: 0.3}}))
  t.not(explored.manifest, plain.manifest, 'exploration is another experiment')
  const ledger = await store.ledger()
  t.same(ledger.load<'manifest'>(explored.manifest).body.explore, {rate: 0.3})
  t.equal(ledger.load<'manifest'>(plain.manifest).body.explore, undefined)
  const traces = (m: string) => ledger.select({kinds: ['trace']}).map(e => ledger.load<'trace'>(e)).filter(r => r.body.manifest === m)
  const lines = EXPERT.split('\n')
  let left = 0
  const wrong: string[] = []
  for (const tr of traces(explored.manifest)) {
    const read = tr.body.messages[0]!.content
    const dropped = tr.body.explored!.dropped
    left += dropped.length
    for (const n of dropped) if (read.includes(lines[n - 1]!)) wrong.push(`${tr.id}: line ${n} is in what the agent read`)
    if (parseRules(read).length !== RULES - dropped.length) wrong.push(`${tr.id}: not every other rule was read`)
  }
  t.same(wrong, [], 'each trace names exactly the rule lines its agent did not read')
  t.ok(left > 0, 'some lines were left out')
  t.ok(traces(plain.manifest).every(tr => tr.body.explored === undefined && parseRules(tr.body.messages[0]!.content).length === RULES), 'without exploration every rule is read')
  t.ok(explored.success_rate < plain.success_rate, `an expert skill read in part does worse (${explored.success_rate} < ${plain.success_rate})`)
  const before = (await store.ledger()).size
  await t.rejects(runEvaluation(store, runOpts(repo, {split: 'validation', skill: 'skills/onboarding-expert', explore: {rate: 0.3}})), {code: 'E_USAGE', message: /exploration is for training runs only/})
  t.equal((await store.ledger()).size, before, 'nothing recorded')
})
