import t from 'tap'
import {historyRepo} from '../helpers/promotions.js'
import {git} from '../helpers/repo.js'
import {readBlame, readProvenance} from '../../src/reports/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'

const MAIN = 'refs/heads/main'

t.test('provenance and blame over a repository with two promotions and a rejection', async t => {
  const h = await historyRepo(t)
  const [first, second] = h.accepted

  t.test('every version reaches back from its merge commit to the failing train traces', async t => {
    const p = await readProvenance(h.store, new GitWorkspace(h.store), {mainRef: MAIN, skill: 'onboarding'})
    t.equal(p.main.version, 3)
    t.equal(p.main.commit, (await git(h.repo, 'rev-parse', 'main')).trim())
    t.same(p.versions.map(v => [v.version, v.origin]), [[1, 'initial'], [2, 'promotion'], [3, 'promotion']])
    t.equal(p.versions[0]!.commit, h.initial, 'v1 is the commit that added the skill')
    for (const [v, step] of [[p.versions[1]!, first], [p.versions[2]!, second]] as const) {
      t.equal(v.commit, step.result.merge, `v${v.version}: the merge commit`)
      t.equal(v.promotion?.proposal, step.proposal)
      t.equal(v.proposal?.id, step.proposal)
      t.equal(v.decision?.verdict, 'accept')
      t.equal(v.decision?.merge?.commit, step.result.merge)
      t.same(v.evaluations?.map(e => `${e.split}/${e.role}`), ['validation/baseline', 'validation/candidate', 'holdout/baseline', 'holdout/candidate'])
      t.same(v.knowledge?.map(k => k.id), [step.knowledge], 'the knowledge of the edit')
      t.ok(v.recall?.items.some(i => i.knowledge === step.knowledge), 'recalled')
      t.same(v.knowledge![0]!.evidence.map(e => e.id), [step.evidence])
      t.ok(step.failing.length > 0)
      t.same(v.failures, [...step.failing].sort(), 'reaches the failing traces')
      const traces = v.knowledge![0]!.evidence[0]!.traces
      t.ok(traces.filter(x => x.outcome === 'failed').every(x => x.manifest === step.manifest && x.split === 'train' && x.verification), 'failing train traces of the train manifest, with their verification')
      t.ok(traces.some(x => x.role === 'counterexample' && x.outcome === 'passed'), 'counter-examples are kept apart')
      t.same(v.missing, [])
    }
    const ledger = await h.store.ledger()
    t.ok(p.versions.flatMap(v => v.evaluations ?? []).every(e => !ledger.get(e.id)!.private), 'held-out shows only as public aggregates')
  })

  t.test('SKILL@VERSION selects one version; an unknown version is not found', async t => {
    const p = await readProvenance(h.store, new GitWorkspace(h.store), {mainRef: MAIN, skill: 'onboarding', version: 2})
    t.same(p.versions.map(v => v.version), [2])
    await t.rejects(readProvenance(h.store, new GitWorkspace(h.store), {mainRef: MAIN, skill: 'onboarding', version: 9}), {code: 'E_NOT_FOUND'})
    await t.rejects(readProvenance(h.store, new GitWorkspace(h.store), {mainRef: MAIN, skill: 'nope'}), {code: 'E_NOT_FOUND'})
  })

  t.test('blame gives each added line its promotion and knowledge, and the rest to the initial commit', async t => {
    const b = await readBlame(h.store, new GitWorkspace(h.store), {mainRef: MAIN, skill: 'onboarding'})
    t.equal(b.path, 'skills/onboarding/SKILL.md')
    const skill = (await git(h.repo, 'show', 'main:skills/onboarding/SKILL.md')).replace(/\n$/, '').split('\n')
    t.same(b.lines.map(l => l.text), skill, 'every line of main, in order')
    for (const [step, version] of [[first, 2], [second, 3]] as const) {
      const line = b.lines.find(l => l.text.includes(step.line))
      t.ok(line, `the line of v${version} is on main`)
      t.match(line, {origin: 'promotion', version, merge: step.result.merge, proposal: step.proposal, decision: step.result.decision, knowledge: [step.knowledge], match: 'edit'})
    }
    t.notOk(b.lines.some(l => l.text.includes(h.rejected.line)), 'the rejected line never reached main')
    const rest = b.lines.filter(l => l.origin !== 'promotion')
    t.equal(rest.length, skill.length - 2)
    t.ok(rest.every(l => l.origin === 'initial' && l.version === 1 && l.commit === h.initial && !l.knowledge.length), 'initial lines come from the initial commit')
  })
})
