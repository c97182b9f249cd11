import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson, ROOT} from '../helpers/cli.js'
import {smallExampleRepo as exampleRepo} from '../helpers/loop-example.js'
import {git} from '../helpers/repo.js'
import {NULL_KINDS, nullVariant} from '../../src/loop/audit-null.js'
import {parseRules} from '../../src/knowledge/index.js'

interface AuditJson {
  trials: number
  promoted: number
  false_promotion_rate: number
  interval: {low: number; high: number; method: string}
  by_kind: Record<string, {trials: number; promoted: number}>
  decided_by: Record<string, number>
  episodes: {total: number}
  promotions: {count: number}
  details: {kind: string; verdict: string; validation: {wins: number; losses: number}}[]
}

const EXPERT = fs.readFileSync(path.join(ROOT, 'test/fixtures/skills/onboarding-expert/SKILL.md'), 'utf8')
const INITIAL = fs.readFileSync(path.join(ROOT, 'skills/onboarding/SKILL.md'), 'utf8')
const sortedRules = (text: string) => parseRules(text).map(r => JSON.stringify(r)).sort()

t.test('null candidates change the text, never the rules the agent follows', async t => {
  for (const text of [EXPERT, INITIAL]) {
    for (const kind of NULL_KINDS) {
      for (const trial of [0, 1, 5]) {
        const v = nullVariant(text, kind, trial)
        t.not(v, text, `${kind} ${trial} changes the text`)
        t.same(sortedRules(v), sortedRules(text), `${kind} ${trial} keeps the rules`)
      }
    }
  }
  t.not(nullVariant(EXPERT, 'shuffle', 0).split('\n').filter(l => l.includes('`')).join('\n'), EXPERT.split('\n').filter(l => l.includes('`')).join('\n'), 'a shuffle moves rule lines')
  t.match(nullVariant(INITIAL, 'rewording', 0), /Find|Give out|collect|withdraw|Create|Record|maintain|require|once|describe|named|current/)
})

// audit-gate runs each null candidate through validation and held-out: on the small example
// (a third of the built-in scenarios, test/helpers/loop-example.ts), as what is asserted holds
// for any set of scenarios
t.test('exp audit-gate sends null candidates through the promotion path in a scratch copy and reports the rate with its interval', async t => {
  const repo = await exampleRepo(t)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  const refs = (await git(repo, 'for-each-ref')).trim()
  const r = await expJson<AuditJson>(['audit-gate', '--trials', '6'], {cwd: repo})
  t.equal(r.trials, 6)
  t.same(Object.values(r.by_kind).map(k => k.trials), [2, 2, 2], 'each kind in turn')
  t.ok(r.interval.low <= r.false_promotion_rate && r.false_promotion_rate <= r.interval.high, 'the rate within its interval')
  t.equal(r.interval.method, 'wilson')
  t.equal(Object.values(r.decided_by).reduce((a, b) => a + b, 0), 6, 'every trial names the check that decided it')
  t.ok(r.episodes.total > 0)
  t.ok(r.details.some(d => d.validation.wins + d.validation.losses > 0), 'under noise, null candidates and base differ by chance')
  t.equal(r.promotions.count, 0, 'no real promotion in this repository yet')
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'main untouched')
  t.equal((await git(repo, 'for-each-ref')).trim(), refs, 'no branch, lane or record written here')
  // a proposal another lane wrote first under the key of a null candidate (main's tip and the
  // trial: anyone can guess it) does not stop the audit: its scratch copy has the main branch only
  const blob = (await git(repo, 'rev-parse', 'main:skills/onboarding/SKILL.md')).trim()
  const planted = {skill: 'onboarding', branch: 'exp/proposal/mine', base: {commit: main, skill_blob: blob}, head: {commit: main, skill_blob: blob}, patch: {diff: '', edits: [], size: {added: 0, removed: 0, changed: 0}, sections: [], normalized: `sha256:${'0'.repeat(64)}`}, reason: 'mine', knowledge: [], recall: `rc-${'0'.repeat(24)}`, proposer: {name: 'mallory', version: '1'}}
  const squat = await exp(['append', 'proposal', '-', '--lane', 'mallory', '--key', `audit-gate/${main}/0`], {cwd: repo, input: JSON.stringify(planted)})
  t.equal(squat.code, 0, squat.stderr)
  const text = await exp(['audit-gate', '--trials', '3', '--noise', '0'], {cwd: repo})
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, /false promotions: 0 of 3 = 0\.0% \(95% Wilson interval 0\.0% to \d+\.\d%\)/, 'without noise a null candidate is exactly as good as its base')
})

t.test('a gate that promotes everything is caught; a bad policy file is refused', async t => {
  const repo = await exampleRepo(t)
  const loose = path.join(repo, '.git', 'loose.yaml')
  fs.writeFileSync(loose, 'version: "1"\nsuccess: {must_improve: false}\nregressions: {max: 100}\nholdout: {required: false}\n')
  const r = await expJson<AuditJson>(['audit-gate', '--trials', '3', '--policy', loose], {cwd: repo})
  t.equal(r.false_promotion_rate, 1, 'every null candidate promoted')
  t.ok(r.interval.low > 0.3)
  fs.writeFileSync(loose, 'version: "1"\nrequire: {mcnemar_p_max: 0.05}\n')
  const bad = await exp(['audit-gate', '--trials', '1', '--policy', loose], {cwd: repo})
  t.not(bad.code, 0)
  t.match(bad.stderr, /require is not allowed in this version/)
  const missing = await exp(['audit-gate', '--trials', '1', '--policy', 'nope.yaml'], {cwd: repo})
  t.not(missing.code, 0)
  t.match(missing.stderr, /nope\.yaml/)
  const noise = await exp(['audit-gate', '--trials', '1', '--noise', '2'], {cwd: repo})
  t.equal(noise.code, 2)
})
