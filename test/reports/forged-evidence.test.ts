import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {expBatch} from '../helpers/cli-batch.js'
import {smallEvolvedOnce} from '../helpers/cli-fixtures.js'
import {handCommit} from '../helpers/repo.js'
import {GitRecordStore} from '../../src/store/index.js'
import {encodeRecord, prepare, recordPath, seal} from '../../src/records/index.js'
import type {EvidenceBody} from '../../src/records/types.js'
import type {Report} from '../../src/reports/index.js'
import {evidenceNode} from '../../src/projections/provenance-nodes.js'

// Found by an attack sweep (sweep 34, break 3): lane `mallory` wrote one evidence record at
// `Exp-Lamport: 1`, a copy of an honest one with `support` and `failures` set to 2^53 - 1
// while it cited 51 supporting and 31 counterexample runs. The first "Observed patterns"
// line of iteration 1 in results/report.md then read `[missing_check, 9007199254740991
// supporting / 9007199254740991 against]`, no lane named, as what the honest loop had mined,
// and `exp fsck` said 0 problems. The report took every public evidence record whose clock
// fell between two proposals (any lane picks its clock), and nothing checked the counts
// against the runs the record cites. An iteration's patterns are now the evidence behind its
// own proposal (the knowledge it cites), counts that are not the runs cited are left out,
// and fsck names them (inconsistent_evidence).

const HUGE = Number.MAX_SAFE_INTEGER

/** An evidence record sealed as exp seals it, committed by hand on `lane` at the clock its writer picked. */
async function forge(repo: string, lane: string, lamport: number, body: EvidenceBody, cites: readonly string[]): Promise<string> {
  const r = seal(prepare({kind: 'evidence', body, cites: [...cites]}), {lane, lamport, createdAt: '2026-01-01T00:00:00.000Z'})
  const trailers = `Exp-Record: evidence/${r.id}\nExp-Schema: ${r.schema}\nExp-Lamport: ${lamport}\n${r.cites.length ? `Exp-Cites: ${r.cites.join(' ')}\n` : ''}`
  await handCommit(repo, lane, recordPath('evidence', r.id), encodeRecord(r).toString(), `evidence: forged\n\n${trailers}`)
  return r.id
}

t.test("another lane's evidence at Lamport 1 is not an honest iteration's pattern, and counts its runs contradict are named by fsck", async t => {
  const {repo} = await smallEvolvedOnce(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const proposal = ledger.records({kinds: ['proposal']})[0]!
  // what the iteration's own chain reaches: the evidence its proposal's knowledge cites
  const chained = new Set(proposal.body.knowledge.flatMap(k => ledger.load<'knowledge'>(k).body.evidence.evidence_ids))
  const honest = ledger.records({kinds: ['evidence']}).find(e => chained.has(e.id))!
  t.ok(honest, 'the honest iteration has evidence behind its proposal')
  const body = honest.body as EvidenceBody
  t.ok(body.supporting.length > 0, `the honest evidence cites ${body.supporting.length} supporting runs`)

  // the sweep's record: counts no run list gives; and one whose counts are its runs', which is
  // still another lane's and behind no proposal
  const liar = await forge(repo, 'mallory', 1, {...body, support: HUGE, failures: HUGE}, honest.cites)
  const stray = await forge(repo, 'mallory', 2, {...body, supporting: body.supporting.slice(0, 1), counterexamples: [], support: 1, failures: 0}, honest.cites)

  const [site, json, fsck] = await expBatch([['report', '--out', 'site'], ['report', '--json'], ['fsck', '--json']].map(args => ({args, cwd: repo})))
  t.equal(site!.code, 0, site!.stderr)
  t.equal(json!.code, 0, json!.stderr)
  const md = fs.readFileSync(path.join(repo, 'site/report.md'), 'utf8')
  const html = fs.readFileSync(path.join(repo, 'site/report.html'), 'utf8')
  t.notMatch(md, String(HUGE), 'report.md shows no count the forged record states')
  t.notMatch(html, String(HUGE), 'nor does report.html')

  const report = JSON.parse(json!.stdout) as Report
  const [first] = report.skills[0]!.iterations
  t.equal(first?.proposal, proposal.id)
  const shown = first!.patterns.map(p => p.evidence)
  t.ok(shown.includes(honest.id), 'the honest evidence behind the proposal is a pattern of its iteration')
  t.notOk(shown.includes(liar) || shown.includes(stray), "another lane's evidence near the proposal in ledger order is not")
  t.same(shown.filter(id => !chained.has(id)), [], 'every pattern is evidence the proposal cites through its knowledge')
  t.match(first!.patterns.find(p => p.evidence === honest.id), {support: body.support, failures: body.failures}, 'with the counts of the runs it cites')
  t.match(md, `[${body.pattern}, ${body.support} supporting / ${body.failures} against]`)

  t.equal(fsck!.code, 5, 'fsck exits non-zero')
  const problems = (JSON.parse(fsck!.stdout) as {error: {data: {problems: {code: string; id?: string; ref?: string; message: string}[]}}}).error.data.problems
  t.match(problems, [{code: 'inconsistent_evidence', id: liar, ref: 'refs/research/lanes/mallory', message: new RegExp(`support ${HUGE} is not the ${body.supporting.length} supporting run\\(s\\) it cites; failures ${HUGE} is not the ${body.counterexamples.length} counterexample\\(s\\) it cites`)}], 'fsck names the record whose counts are not its runs, and only it')
  t.equal(problems.length, 1)

  // `exp provenance` shows an evidence record by the runs it cites, and says when its stated counts differ
  const after = await store.ledger()
  t.match(evidenceNode(after, liar), {support: body.supporting.length, failures: body.counterexamples.length, inconsistent: new RegExp(`^support ${HUGE} is not the ${body.supporting.length} supporting run`)})
  t.notOk('inconsistent' in evidenceNode(after, honest.id), 'the honest record is shown as it is')
})
