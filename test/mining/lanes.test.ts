import fs from 'node:fs'
import t from 'tap'
import {exp, expJson} from '../helpers/cli.js'
import {exampleTrainedOnce} from '../helpers/cli-fixtures.js'
import {tempDir} from '../helpers/repo.js'

// Another lane's verdicts of a lane's runs are not that lane's experience. Lane "evil" writes
// ordinary records with `exp append`: for each of lane me's train traces, a verification with
// `passed` flipped (its real verdict looked contradicted, and the miner dropped it), and a copy
// of the trace under me's own manifest (another repetition, a key of its own) with a correct
// trace_digest and a flipped verdict. me's `exp mine` then learned from verdicts the grader never
// gave, recorded them on me, and `exp propose` proposed what the grader fails; `exp fsck
// --replay` saw nothing wrong.

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
  ignored?: number
}
interface ProposeJson {
  proposal: string | null
  patch?: {rendered: {text: string}}
}

const flip = (b: VBody): VBody => ({...b, passed: !b.passed, outcome: b.passed ? 'negative' : 'positive', scores: {...b.scores, success: b.passed ? 0 : 1}})
const lines = (xs: unknown[]) => xs.map(x => JSON.stringify(x)).join('\n') + '\n'

async function attack(repo: string): Promise<number> {
  const traces = await expJson<Rec<{manifest: string; scenario: string; repetition: number}>[]>(['ledger', '--json', '--kind', 'trace', '--lane', 'me'], {cwd: repo})
  const verifications = await expJson<Rec<VBody>[]>(['ledger', '--json', '--kind', 'verification', '--lane', 'me'], {cwd: repo})
  const of = new Map(verifications.filter(v => v.body.valid).map(v => [v.body.trace, v]))
  const graded = traces.filter(tr => of.has(tr.id))
  // (a) every verdict of me's, flipped, on lane evil
  await expJson(['append', '--batch', '--json', '--lane', 'evil', '-'], {cwd: repo, input: lines(graded.map(tr => ({kind: 'verification', body: flip(of.get(tr.id)!.body), cites: of.get(tr.id)!.cites})))})
  // (b) copies of me's traces under me's manifest (new keys), each with a flipped verdict of its very bytes
  const copies = graded.map(tr => {
    const body = {...tr.body, repetition: tr.body.repetition + 100}
    return {kind: 'trace', body, cites: tr.cites, key: `${body.manifest}/${body.scenario}/${body.repetition}/trace`}
  })
  const written = await expJson<{id: string; digest: string}[]>(['append', '--batch', '--json', '--lane', 'evil', '-'], {cwd: repo, input: lines(copies)})
  const verdicts = written.map((r, i) => {
    const b = flip({...of.get(graded[i]!.id)!.body, repetition: copies[i]!.body.repetition, trace: r.id, trace_digest: r.digest})
    return {kind: 'verification', body: b, cites: [b.manifest, r.id], key: `${b.manifest}/${b.scenario}/${b.repetition}/verification`}
  })
  await expJson(['append', '--batch', '--json', '--lane', 'evil', '-'], {cwd: repo, input: lines(verdicts)})
  return graded.length
}

t.test("another lane's flipped verdicts of a lane's runs, and its copies of them under the lane's manifest, teach the lane's miner nothing", async t => {
  const clean = await exampleTrainedOnce(t)
  const repo = tempDir(t)
  fs.cpSync(clean, repo, {recursive: true})
  // what me's runs teach, with no other lane's records
  const honest = await expJson<MineJson>(['mine', '--lane', 'me', '--json'], {cwd: clean})
  t.ok(honest.evidence.length >= 3, `the runs teach something: ${honest.evidence.length} evidence records`)
  const proposed = await expJson<ProposeJson>(['propose', 'onboarding', '--lane', 'me', '--json'], {cwd: clean})
  t.ok(proposed.proposal, 'and a proposal')

  const n = await attack(repo)
  t.ok(n >= 50, `${n} graded train traces of me's, each with a flipped verdict and a flipped copy on evil`)
  const text = await exp(['mine', '--lane', 'me'], {cwd: repo})
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, new RegExp(`${n} train trace\\(s\\) mined, 0 skipped, ${2 * n} record\\(s\\) of other lanes ignored \\(traces or verifications of a mined run that its lane did not write\\)`), 'me\'s runs alone are mined, with their own verdicts; evil\'s copies and verdicts are ignored and counted')
  t.notMatch(text.stdout, /contradicted/, 'no trace of me\'s is contradicted by another lane')
  const evidence = await expJson<Rec<{supporting: string[]}>[]>(['ledger', '--json', '--kind', 'evidence', '--lane', 'me'], {cwd: repo})
  t.same(evidence.map(e => e.id).sort(), [...honest.evidence].sort(), 'the evidence recorded on me is what me\'s runs alone give')
  const evil = new Set((await expJson<Rec[]>(['ledger', '--json', '--lane', 'evil'], {cwd: repo})).map(r => r.id))
  t.notOk(evidence.some(e => e.cites.some(c => evil.has(c))), 'no evidence cites a record of evil\'s')
  const again = await expJson<MineJson>(['mine', '--lane', 'me', '--json'], {cwd: repo})
  t.same(again, {evidence: honest.evidence, knowledge: [], skipped: 0, ignored: 2 * n}, 'mining again adds nothing; --json counts what it ignored')
  const p = await expJson<ProposeJson>(['propose', 'onboarding', '--lane', 'me', '--json'], {cwd: repo})
  t.equal(p.patch?.rendered.text, proposed.patch?.rendered.text, 'me proposes what its own runs taught it')
})
