import t from 'tap'
import {exp, expJson} from '../helpers/cli.js'
import {historyRepo} from '../helpers/promotions.js'
import {rawCommit} from '../helpers/raw-record.js'
import {citedEntry, Ledger, type LedgerEntry} from '../../src/store/index.js'

// Found by an attack sweep (Break 2 of sweep 34): a keyed record's id names no lane, so another
// lane can write a record under the key of one this lane wrote. One raw commit on a new lane
// (`0evil`, Exp-Lamport 1: first in ledger order) held a copy of one verification an accepted
// decision's evaluation cites, with `passed` flipped. The ledger shows the first copy of an id,
// and the trust checks looked cites up by `ledger.get`: the honest evaluation's evidence digest
// no longer matched, its decision and the promotion stopped standing in every view (provenance
// UNVERIFIED, the hypothesis back to supported, the frontier asking for a decision again), and
// fsck blamed the honest lane (forged_decision, inconsistent_evaluation). A record's cites are
// now looked up on its own lane first, and fsck names the lane that wrote the foreign copy.

interface FsckJson {error: {data: {problems: {code: string; ref?: string; id?: string; message: string}[]}}}

t.test('another lane\'s copy of a cited verification, first in ledger order, replaces nothing in the trust checks; fsck names that lane', async t => {
  const h = await historyRepo(t)
  const step = h.accepted[0]
  const ledger = await h.store.ledger()
  const decision = ledger.load<'decision'>(step.result.decision).body
  const validation = decision.evaluations.map(id => ledger.get(id)!).find(e => ledger.load<'evaluation'>(e).body.split === 'validation')!
  const own = ledger.get(validation.cites.find(c => c.startsWith('vr-'))!)!
  const honest = ledger.load<'verification'>(own)
  t.equal(own.lane, validation.lane, 'the verification is on the evaluation\'s own lane')

  const views = async () => ({
    provenance: (await expJson<{versions: unknown[]}>(['provenance', 'onboarding'], {cwd: h.repo})).versions,
    hypotheses: await expJson<unknown[]>(['hypotheses'], {cwd: h.repo}),
    frontier: await exp(['frontier'], {cwd: h.repo}),
  })
  const before = await views()
  const clean = await exp(['fsck'], {cwd: h.repo})
  t.equal(clean.code, 0, `fsck is clean before: ${clean.stdout}${clean.stderr}`)

  // the copy: the same key (so the same id), passed flipped, the only record of a new lane at Lamport 1
  const flipped = {...honest.body, passed: !honest.body.passed, outcome: honest.body.passed ? 'negative' : 'positive'} as typeof honest.body
  const id = rawCommit(h.repo, '0evil', 1, {kind: 'verification', key: honest.key!, body: flipped, cites: honest.cites})
  t.equal(id, own.id, 'the copy holds the id of the honest verification')
  const after = await h.store.ledger()
  t.equal(after.get(id)!.lane, '0evil', 'and is first in ledger order: views of the id show it')

  const prov = await exp(['provenance', 'onboarding'], {cwd: h.repo})
  t.equal(prov.code, 0, prov.stderr)
  t.notMatch(prov.stdout, /UNVERIFIED/, 'provenance: the promotion still stands')
  t.match(prov.stdout, /v2 {2}promoted by merge/)
  const now = await views()
  t.same(now.provenance, before.provenance, 'provenance --json is what it was')
  t.same(now.hypotheses, before.hypotheses, 'hypotheses keep their status (promoted)')
  t.equal(now.frontier.stdout, before.frontier.stdout, 'the frontier offers nothing new (no decide_promotion of a promoted hypothesis)')
  t.notMatch(now.frontier.stdout, /decide_promotion/)
  const blame = await exp(['blame', 'onboarding'], {cwd: h.repo})
  t.notMatch(blame.stdout, /UNVERIFIED/, 'blame: the lines it brought are of a promotion')

  const fsck = await exp(['fsck', '--json'], {cwd: h.repo})
  t.equal(fsck.code, 5, 'fsck fails on the conflict')
  const problems = (JSON.parse(fsck.stdout) as FsckJson).error.data.problems
  t.same(problems.map(p => [p.code, p.ref, p.id]), [['duplicate-id', 'refs/research/lanes/0evil', id]], 'one problem: the foreign copy, on the lane that wrote it')
  t.match(problems[0]!.message, new RegExp(`foreign copy of ${id}: lane 0evil holds it with other content than the record lane ${own.lane} wrote`))
  const text = await exp(['fsck'], {cwd: h.repo})
  t.notMatch(text.stdout, /forged_decision|inconsistent_evaluation|unverified_promotion/, 'no honest record is blamed')
})

t.test('citedEntry: a record\'s own lane first, then the copy its digest pins, then the one views show', async t => {
  const id = 'vr-000000000000000000000001'
  const entry = (lane: string, digest: string, lamport: number, priv = false): LedgerEntry => ({id, kind: 'verification', digest, lane, ref: `refs/research/${priv ? 'private' : 'lanes'}/${lane}`, private: priv, lamport, commit: '0'.repeat(40), cites: []})
  const evil = entry('0evil', 'sha256:e', 1)
  const mine = entry('me', 'sha256:m', 5)
  const third = entry('other', 'sha256:o', 3)
  const ledger = new Ledger([mine, evil, third], () => {
    throw new Error('no body is read')
  })
  t.equal(ledger.get(id), evil, 'views show the first in ledger order')
  t.same(ledger.copies(id), [third, mine], 'the other copies, in ledger order')
  t.equal(citedEntry(ledger, id, {lane: 'me', private: false}), mine, 'a record of lane me cites its own')
  t.equal(citedEntry(ledger, id, {lane: 'me', private: true}), mine, 'from its private half too')
  t.equal(citedEntry(ledger, id, {lane: 'x', private: false}), evil, 'a lane with no copy: the one views show')
  t.equal(citedEntry(ledger, id, {lane: 'x', private: false}, 'sha256:o'), third, 'unless the record pins another copy\'s digest')
  t.equal(citedEntry(ledger, id, {lane: 'me', private: false}, 'sha256:o'), third, 'a pinned digest before its own lane\'s other bytes')
  t.equal(citedEntry(ledger, id, {lane: 'me', private: false}, 'sha256:none'), mine, 'a digest no copy has: its own lane\'s')
  const single = new Ledger([entry('a', 'sha256:a', 1)], () => {
    throw new Error('no body is read')
  })
  t.equal(citedEntry(single, id, {lane: 'me', private: false})?.lane, 'a', 'an id held once is that record, on any lane')
  t.same(single.copies(id), [])
})
