import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {expBatch} from '../helpers/cli-batch.js'
import {oneIterationAsAlice} from '../helpers/evolve.js'
import {GitRecordStore} from '../../src/store/index.js'
import type {DecisionBody, EvidenceBody, ProposalBody} from '../../src/records/types.js'

// Found by a review of the derived views: docs/provenance.md says "Provenance, blame and
// reports never show a private record, even in a clone that has them", but `exp report` read
// proposals (ledger.select includes private lanes unless told not to), the evidence mined
// before each ("Observed patterns") and decisions from this clone's private lanes, and printed
// them into report.md and report.html.

t.test('a record of a private lane never reaches the report, provenance or blame', async t => {
  const repo = await oneIterationAsAlice(t)

  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const honest = ledger.records({kinds: ['proposal']})[0]!
  const decision = ledger.records({kinds: ['decision']})[0]!
  const evidence = ledger.records({kinds: ['evidence']})[0]!
  const secret = {lane: 'alice', private: true}
  // a proposal kept on this clone's private lane, its decision's copy, and evidence mined there
  const mine: ProposalBody = {...honest.body, reason: 'PRIVATE-ONLY reason', patch: {...honest.body.patch, edits: honest.body.patch.edits.map((e, i) => (i ? e : {...e, lines: ['PRIVATE-ONLY line']}))}}
  await store.append({kind: 'proposal', body: mine, cites: honest.cites}, secret)
  await store.append({kind: 'decision', body: {...(decision.body as DecisionBody), reasons: ['PRIVATE-ONLY decision']}, cites: decision.cites}, secret)
  const {rule: _rule, ...plain} = evidence.body as EvidenceBody
  await store.append({kind: 'evidence', body: {...plain, signature: 'PRIVATE-ONLY signature', description: 'PRIVATE-ONLY evidence'}, cites: evidence.cites}, secret)
  // a public proposal after it: the evidence mined before it is what its iteration shows
  const open = (await store.append({kind: 'proposal', body: {...honest.body, reason: 'a public one'}, cites: honest.cites}, {lane: 'bob'})).id

  const runs = await expBatch([['report', '--out', 'site'], ['report', '--json'], ['provenance', 'onboarding'], ['provenance', 'onboarding', '--json'], ['blame', 'onboarding', '--json']].map(args => ({args, cwd: repo})))
  for (const r of runs) t.equal(r.code, 0, r.stderr)
  const md = fs.readFileSync(path.join(repo, 'site/report.md'), 'utf8')
  const html = fs.readFileSync(path.join(repo, 'site/report.html'), 'utf8')
  t.ok(md.includes(`${open}, lane bob`), 'the public proposal is in the report')
  for (const [name, text] of [['report.md', md], ['report.html', html], ...runs.map((r, i) => [`output ${i}`, r.stdout] as const)] as const) t.notMatch(text, /PRIVATE-ONLY/, `${name}: nothing of a private lane`)
})
