import fs from 'node:fs'
import t from 'tap'
import {exp, expJson} from '../helpers/cli.js'
import {exampleTrainedOnce} from '../helpers/cli-fixtures.js'
import {tempDir} from '../helpers/repo.js'

// Another lane's verdicts of a lane's runs are not that lane's experience. Lane "evil" writes
// ordinary records with `exp append`: for each of lane me's train traces, a verification with
// `passed` flipped (its real verdict looked contradicted, and the miner dropped it), and copies of
// the trace under me's own manifest (other repetitions, keys of its own) with a correct
// trace_digest and a flipped verdict. me's `exp mine` then learned from verdicts the grader never
// gave, recorded them on me, and `exp propose` proposed what the grader fails; `exp fsck --replay`
// saw nothing wrong. Now a verdict counts only when its trace, replayed in a fresh world and
// graded again, gets it; and one trace per place (scenario, repetition) the run planned.

interface Rec<B = Record<string, unknown>> {
  id: string
  digest: string
  lane: string
  body: B
  cites: string[]
}
interface VBody {
  trace: string
  trace_digest: string
  manifest: string
  scenario: string
  repetition: number
  valid: boolean
  passed: boolean
  outcome: string
  scores: Record<string, number>
}
interface MineJson {
  evidence: string[]
  knowledge: string[]
  skipped: number
  contradicted?: number
  forged?: number
  surplus?: number
}
interface ProposeJson {
  proposal: string | null
  patch?: {rendered: {text: string}}
}

const flip = (b: VBody): VBody => ({...b, passed: !b.passed, outcome: b.passed ? 'negative' : 'positive', scores: {...b.scores, success: b.passed ? 0 : 1}})
const lines = (xs: unknown[]) => xs.map(x => JSON.stringify(x)).join('\n') + '\n'

/** The attack, as records any lane can append; returns how many of me's graded traces it took on and how many copies it wrote. */
async function attack(repo: string): Promise<{graded: number; copies: number}> {
  const traces = await expJson<Rec<{manifest: string; scenario: string; repetition: number}>[]>(['ledger', '--json', '--kind', 'trace', '--lane', 'me'], {cwd: repo})
  const verifications = await expJson<Rec<VBody>[]>(['ledger', '--json', '--kind', 'verification', '--lane', 'me'], {cwd: repo})
  const of = new Map(verifications.filter(v => v.body.valid).map(v => [v.body.trace, v]))
  const graded = traces.filter(tr => of.has(tr.id))
  // (a) every verdict of me's, flipped, on lane evil
  await expJson(['append', '--batch', '--json', '--lane', 'evil', '-'], {cwd: repo, input: lines(graded.map(tr => ({kind: 'verification', body: flip(of.get(tr.id)!.body), cites: of.get(tr.id)!.cites})))})
  // (b) copies of me's traces under me's manifest: in the trace's own place (another key) and at repetition 100, each with a flipped verdict of its very bytes
  const copies = graded.flatMap(tr =>
    [tr.body.repetition, tr.body.repetition + 100].map((repetition, i) => {
      const body = {...tr.body, repetition}
      return {kind: 'trace', body, cites: tr.cites, key: `evil/${tr.id}/${i}`}
    }),
  )
  const written = await expJson<{id: string; digest: string}[]>(['append', '--batch', '--json', '--lane', 'evil', '-'], {cwd: repo, input: lines(copies)})
  const verdicts = written.map((r, i) => {
    const b = flip({...of.get(graded[Math.floor(i / 2)]!.id)!.body, repetition: copies[i]!.body.repetition, trace: r.id, trace_digest: r.digest})
    return {kind: 'verification', body: b, cites: [b.manifest, r.id], key: `evil/${r.id}/verification`}
  })
  await expJson(['append', '--batch', '--json', '--lane', 'evil', '-'], {cwd: repo, input: lines(verdicts)})
  return {graded: graded.length, copies: copies.length}
}

t.test("another lane's flipped verdicts of a lane's runs, and its flipped copies of them under the lane's manifest, teach the lane's miner nothing", async t => {
  const clean = await exampleTrainedOnce(t)
  const repo = tempDir(t)
  fs.cpSync(clean, repo, {recursive: true})
  // what me's runs teach, with no other lane's records
  const honest = await expJson<MineJson>(['mine', '--lane', 'me', '--json'], {cwd: clean})
  t.ok(honest.evidence.length >= 3, `the runs teach something: ${honest.evidence.length} evidence records`)
  const proposed = await expJson<ProposeJson>(['propose', 'onboarding', '--lane', 'me', '--json'], {cwd: clean})
  t.ok(proposed.proposal, 'and a proposal')

  const {graded: n, copies} = await attack(repo)
  t.ok(n >= 50, `${n} graded train traces of me's, each with a flipped verdict and two flipped copies on evil`)
  const text = await exp(['mine', '--lane', 'me'], {cwd: repo})
  t.equal(text.code, 0, text.stderr)
  // me's flipped verdicts do not replay (ignored); evil's copies in me's places are left out before any replay, and those at repetition 100 are places the run never planned (surplus)
  t.match(text.stdout, new RegExp(`${n} train trace\\(s\\) mined, 0 skipped, ${copies} surplus .*; ${n} verdict\\(s\\) ignored: replayed and graded again, the trace gets another;`), 'me\'s runs are mined with their own verdicts; evil\'s verdicts are ignored, its copies surplus, each counted')
  t.notMatch(text.stdout, /contradicted/, 'no trace of me\'s is contradicted by another lane')
  const evidence = await expJson<Rec<{supporting: string[]}>[]>(['ledger', '--json', '--kind', 'evidence', '--lane', 'me'], {cwd: repo})
  t.same(evidence.map(e => e.id).sort(), [...honest.evidence].sort(), 'the evidence recorded on me is what me\'s runs alone give')
  const evil = new Set((await expJson<Rec[]>(['ledger', '--json', '--lane', 'evil'], {cwd: repo})).map(r => r.id))
  t.notOk(evidence.some(e => e.cites.some(c => evil.has(c))), 'no evidence cites a record of evil\'s')
  const again = await expJson<MineJson>(['mine', '--lane', 'me', '--json'], {cwd: repo})
  t.same(again, {evidence: honest.evidence, knowledge: [], skipped: 0, forged: n, surplus: copies}, 'mining again adds nothing; --json counts what it ignored')
  const p = await expJson<ProposeJson>(['propose', 'onboarding', '--lane', 'me', '--json'], {cwd: repo})
  t.equal(p.patch?.rendered.text, proposed.patch?.rendered.text, 'me proposes what its own runs taught it')
})

t.test('runs on another scenarios folder are not mined unless it is named: their verdicts cannot be replayed here', async t => {
  const repo = await exampleTrainedOnce(t)
  const moved = tempDir(t)
  fs.cpSync(`${repo}/scenarios`, moved, {recursive: true})
  // the scenarios the runs read, changed after: one scenario file edited
  const file = fs.readdirSync(`${repo}/scenarios`).find(f => f.endsWith('.yaml'))!
  fs.appendFileSync(`${repo}/scenarios/${file}`, '\n# edited\n')
  const r = await exp(['mine', '--lane', 'me'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /^0 train trace\(s\) mined, 0 skipped, \d+ not replayable here \(their run read other scenarios than scenarios: pass its folder with --scenarios\); 0 evidence/m)
  const named = await expJson<MineJson>(['mine', '--lane', 'me', '--json', '--scenarios', moved], {cwd: repo})
  t.ok(named.evidence.length >= 3, 'with the folder they ran on, they are mined')
  const missing = await exp(['mine', '--lane', 'me', '--scenarios', 'nowhere'], {cwd: repo})
  t.equal(missing.code, 3, 'E_NOT_FOUND')
  t.match(missing.stderr, /scenarios folder.*nowhere/)
})
