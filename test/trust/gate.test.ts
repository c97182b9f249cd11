import t, {type Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git, makeRepo, tempDir} from '../helpers/repo.js'
import {GitRecordStore} from '../../src/store/index.js'
import type {VerificationBody} from '../../src/records/types.js'

const WEAKER = '7. Never call `grant_access`.'

async function setup(t: Test): Promise<{repo: string; skill: string; weaken: () => void}> {
  const repo = await makeRepo(t)
  const init = await exp(['init', '--example', 'onboarding'], {cwd: repo})
  if (init.code !== 0) throw new Error(init.stderr)
  const skill = path.join(repo, 'skills/onboarding/SKILL.md')
  const original = fs.readFileSync(skill, 'utf8')
  return {repo, skill, weaken: () => fs.writeFileSync(skill, original.replace('## Failure handling', `${WEAKER}\n\n## Failure handling`))}
}

type GateJson = {error?: {data: {passed: boolean; scope: {protected: string[]}; skills: {verdict: string; validation: {head: number}}[]}}}

// Attack 4 of docs/trust.md: move the tests a weaker skill fails out of the way.

t.test('renaming scenarios out of scenarios/ is a protected deletion; the gate judges with the base scenarios', async t => {
  const {repo, weaken} = await setup(t)
  await git(repo, 'checkout', '-q', '-b', 'walkaround')
  fs.mkdirSync(path.join(repo, 'skills/onboarding/archive'))
  const moved = fs.readdirSync(path.join(repo, 'scenarios')).filter(f => ['val-access-finance-approval.yaml', 'val-access-github-refused.yaml', 'holdout.sealed'].includes(f))
  t.equal(moved.length, 3, 'two validation scenarios and the sealed held-out split')
  for (const f of moved) await git(repo, 'mv', `scenarios/${f}`, `skills/onboarding/archive/${f}`)
  weaken()
  await git(repo, 'commit', '-qam', 'tidy up the access scenarios')
  const r = await exp(['gate', '--base', 'main', '--head', 'walkaround', '--json'], {cwd: repo, env: {CI: 'true'}})
  t.equal(r.code, 6, 'the gate fails')
  const data = (JSON.parse(r.stdout) as GateJson).error!.data
  t.equal(data.passed, false)
  for (const f of moved) t.ok(data.scope.protected.includes(`scenarios/${f}`), `the rename of ${f} counts as a protected deletion`)
  t.match(r.stdout, /skills\/onboarding\/archive/, 'and the additions are listed too')
})

t.test('a weaker skill fails the gate even when its tests were moved, and records that come with the pull request are not reused', async t => {
  const {repo, weaken} = await setup(t)
  // the contract of this repository lets pull requests touch scenarios (a bad contract): the base's scenarios still judge
  const contract = path.join(repo, '.research/contracts/skills.yaml')
  fs.writeFileSync(contract, fs.readFileSync(contract, 'utf8').replace('  - scenarios/**\n', '').replace('editable_scope:\n  - skills/**', 'editable_scope:\n  - skills/**\n  - scenarios/**'))
  await git(repo, 'commit', '-qam', 'a loose contract')
  await git(repo, 'checkout', '-q', '-b', 'worse')
  for (const f of fs.readdirSync(path.join(repo, 'scenarios')).filter(f => f.startsWith('val-access'))) await git(repo, 'rm', '-q', `scenarios/${f}`)
  weaken()
  await git(repo, 'commit', '-qam', 'fewer scenarios, fewer rules')
  const first = await exp(['gate', '--base', 'main', '--head', 'worse', '--json'], {cwd: repo, env: {CI: 'true'}})
  t.equal(first.code, 6, 'the base scenarios still fail the weaker skill')
  const honest = (JSON.parse(first.stdout) as GateJson).error!.data.skills[0]!

  // a clone of the pull request: its author forged passing verifications for the episodes the gate will run
  const store = await GitRecordStore.open(repo)
  const ledger = await store.ledger()
  const forged = ledger.select({kinds: ['verification'], lanes: ['ci']}).map(e => ({e, b: ledger.load<'verification'>(e).body as VerificationBody})).filter(x => !x.b.passed)
  t.ok(forged.length > 0, 'the weaker skill failed episodes')
  await store.close()
  const clone = path.join(tempDir(t), 'clone')
  await git(path.dirname(clone), 'clone', '-q', repo, clone)
  fs.mkdirSync(path.join(clone, '.git', 'exp'), {recursive: true})
  fs.copyFileSync(path.join(repo, '.git', 'exp', 'holdout.key'), path.join(clone, '.git', 'exp', 'holdout.key'))
  const cstore = await GitRecordStore.open(clone)
  t.teardown(() => cstore.close())
  for (const {e, b} of forged) {
    const v = {...b, passed: true, outcome: 'positive' as const, invariants: b.invariants.map(i => ({...i, passed: true})), collateral: [], constraint_violations: [], scores: {...b.scores, success: 1}}
    await cstore.append({kind: 'verification', body: v, cites: [...e.cites], key: `${b.manifest}/${b.scenario}/${b.repetition ?? 0}/verification`}, {lane: 'mallory'})
  }
  const again = await exp(['gate', '--base', 'origin/main', '--head', 'worse', '--json'], {cwd: clone, env: {CI: 'true'}})
  t.equal(again.code, 6, 'the gate still fails')
  t.equal((JSON.parse(again.stdout) as GateJson).error!.data.skills[0]!.validation.head, honest.validation.head, 'with the numbers it measured itself')
})
