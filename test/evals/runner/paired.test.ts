import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {parse as parseYaml} from 'yaml'
import {GitRecordStore} from '../../../src/store/index.js'
import {GitWorkspace} from '../../../src/workspace/git.js'
import {runPaired} from '../../../src/evals/runner/paired.js'
import {afterPass} from '../../../src/loop/policy.js'
import {POLICY_YAML} from '../../../src/research/templates.js'
import type {PromotionPolicy} from '../../../src/records/types.js'
import {exampleRepo} from '../../helpers/evolve.js'
import {git} from '../../helpers/repo.js'
import {ROOT} from '../../helpers/cli.js'

// the expert skill is much longer than the initial one, and its tokens per episode are a cost the
// default policy bounds (+25%): this test is about the stopping rule, so tokens are not bounded here
const DEFAULT = parseYaml(POLICY_YAML) as PromotionPolicy
const POLICY: PromotionPolicy = {...DEFAULT, tolerances: {...DEFAULT.tolerances, tokens: 10}}
const SKILL = 'skills/onboarding/SKILL.md'

async function branchWith(repo: string, name: string, text: string): Promise<void> {
  await git(repo, 'checkout', '-q', '-b', name, 'main')
  fs.writeFileSync(path.join(repo, SKILL), text)
  await git(repo, 'commit', '-qam', name)
  await git(repo, 'checkout', '-q', 'main')
}

t.test('sequential paired validation: a large gain stops early, a null one for futility, and the base is never run twice', async t => {
  const repo = await exampleRepo(t)
  const initial = fs.readFileSync(path.join(repo, SKILL), 'utf8')
  const expert = fs.readFileSync(path.join(ROOT, 'test/fixtures/skills/onboarding-expert/SKILL.md'), 'utf8').replace('name: onboarding-expert', 'name: onboarding')
  await branchWith(repo, 'expert', expert)
  await branchWith(repo, 'reworded', initial.replace('keep IT records up to date', 'keep the IT records current'))
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const common = {split: 'validation' as const, agent: 'scripted', scenariosDir: path.join(repo, 'scenarios'), skillsDir: path.join(repo, 'skills'), cwd: repo, lane: 'me', seed: 42, repo: store.repo, workspace: new GitWorkspace(store)}
  const pair = (head: string) =>
    runPaired(store, {
      baseline: {...common, skill: `main:${SKILL}`, role: 'baseline'},
      candidate: {...common, skill: `${head}:${SKILL}`, role: 'candidate'},
      looks: 3,
      stop: s => afterPass(POLICY, {candidate: s.candidate, baseline: s.baseline}, {look: s.look, scenarios: s.scenarios}),
    })

  const n = fs.readdirSync(path.join(repo, 'scenarios')).filter(f => /^split: validation$/m.test(fs.readFileSync(path.join(repo, 'scenarios', f), 'utf8'))).length
  const good = await pair('expert')
  t.ok(good.look < 3, `the expert skill decided after pass ${good.look} of 3: ${good.why}`)
  t.match(good.why, /every validation check passes/)
  t.equal(good.candidate.total, n * good.look, 'only the passes run are in the evaluation')
  t.equal(good.candidate.body.repeat, good.look)
  t.ok(good.candidate.body.per_scenario.every(p => p.runs === good.look))
  t.equal(good.baseline.recorded, n * good.look)
  t.equal(good.passes.length, good.look)

  const none = await pair('reworded')
  t.equal(none.comparison.wins + none.comparison.losses, 0, 'a rewording changes no outcome of the scripted agent')
  t.equal(none.look, 2, 'stopped for futility after two passes')
  t.match(none.why, /futile: not ahead after pass 2/)
  t.equal(none.baseline.recorded, n * Math.max(0, none.look - good.look), 'the base\'s episodes of the first candidate were reused: same manifest, same ids')
  t.equal(none.baseline.manifest, good.baseline.manifest)
  const firstPass = (ids: {id: string; body: {repetition?: number}}[]) => ids.filter(v => (v.body.repetition ?? 0) === 0).map(v => v.id).sort()
  t.same(firstPass(none.baseline.verified), firstPass(good.baseline.verified), 'the very same base episodes')
})
