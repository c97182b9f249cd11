import t from 'tap'
import {memoryHistory, OID} from '../helpers/report-ledger.js'
import {provenance, parseSkillSpec} from '../../src/projections/provenance.js'
import {skillTimeline, type MainCommit} from '../../src/projections/mainline.js'
import {blame, lineKey} from '../../src/projections/blame.js'
import {parsePorcelainBlame, trailersOf} from '../../src/store/git/history.js'

t.test('provenance is a pure function of the ledger and main: the in-memory chain reaches the failing trace', async t => {
  const h = await memoryHistory()
  const p = provenance(h.ledger, h.mainline, {skill: 'onboarding'})
  t.same(p.main, {commit: OID.m1, version: 2})
  const v2 = p.versions[1]!
  t.match(v2, {version: 2, origin: 'promotion', commit: OID.m1, proposal: {id: h.ids.p1}, decision: {id: h.ids.d1, verdict: 'accept'}, failures: [h.ids.trace], missing: []})
  t.match(v2.knowledge![0], {id: h.ids.knowledge, recall: {rank: 1, score: 4.5}, evidence: [{id: h.ids.evidence, traces: [{id: h.ids.trace, outcome: 'failed', verification: h.ids.verification, failed_invariants: ['device-procured']}]}]})
  t.notOk(v2.evaluations!.some(e => e.id === h.ids.privateHoldout), 'a private evaluation never shows, even when this clone has it')
  t.same(provenance(h.ledger, h.mainline, {skill: 'onboarding'}), p, 'same input, same answer')
})

t.test('a promotion whose records this clone lacks is named as missing, not an error', async t => {
  const h = await memoryHistory()
  const ghost = 'pr-' + 'f'.repeat(24)
  const mainline: MainCommit[] = [...h.mainline, {oid: '9'.repeat(40), parents: [OID.m1, '8'.repeat(40)], subject: 'exp: promote onboarding v3 (x)', trailers: {'Exp-Promotes': [ghost]}, skills: {onboarding: OID.B3}}]
  const p = provenance(h.ledger, mainline, {skill: 'onboarding', version: 3})
  t.match(p.versions, [{version: 3, origin: 'promotion', missing: [ghost], failures: []}])
  // the subject names the skill when the proposal record is absent: another skill's promotion is not a version
  const other = mainline.map(c => (c.oid === '9'.repeat(40) ? {...c, subject: 'exp: promote billing v2 (x)'} : c))
  t.equal(skillTimeline(other, h.ledger, 'onboarding').versions.length, 2)
  t.throws(() => provenance(h.ledger, mainline, {skill: 'onboarding', version: 7}), {code: 'E_NOT_FOUND'})
})

t.test('SKILL[@VERSION] specs', async t => {
  t.same(parseSkillSpec('onboarding'), {skill: 'onboarding'})
  t.same(parseSkillSpec('onboarding@2'), {skill: 'onboarding', version: 2})
  t.same(parseSkillSpec('onboarding@v3'), {skill: 'onboarding', version: 3})
  t.throws(() => parseSkillSpec('onboarding@two'), {code: 'E_USAGE'})
})

t.test('trailers come from the last paragraph only', async t => {
  t.same(trailersOf('exp: promote x\n\nExp-Promotes: not-a-trailer\nmore text\n\nExp-Promotes: pr-1\nExp-Evidence: el-1 el-2\n'), {'Exp-Promotes': ['pr-1'], 'Exp-Evidence': ['el-1 el-2']})
  t.same(trailersOf('subject only'), {})
})

t.test('blame maps a proposal line to its edit by text, list number and case aside', async t => {
  const h = await memoryHistory()
  const a = 'a'.repeat(40)
  const porcelain = [`${OID.c0} 1 1 1`, 'author x', 'summary init', 'filename SKILL.md', '\t## Procedure', `${OID.h1} 2 2 1`, 'author y', 'filename SKILL.md', '\t7.  check <STOCK> first.', `${OID.h1} 3 3 1`, '\t8. Renumbered line', `${a} 4 4 1`, '\tfrom a side branch'].join('\n')
  const parsed = parsePorcelainBlame(porcelain)
  t.same(parsed.map(l => [l.line, l.commit.slice(0, 1), l.via === l.commit]), [[1, 'c', true], [2, '1', true], [3, '1', true], [4, 'a', true]])
  // as `git blame --first-parent` tells: the proposal's lines came with the promotion merge
  const lines = parsed.map(l => (l.commit === OID.h1 ? {...l, via: OID.m1} : l))
  const b = blame(h.ledger, {skill: 'onboarding', path: 'skills/onboarding/SKILL.md', lines, mainline: h.mainline})
  t.match(b.lines, [
    {origin: 'initial', version: 1, knowledge: []},
    {origin: 'promotion', version: 2, merge: OID.m1, proposal: h.ids.p1, decision: h.ids.d1, knowledge: [h.ids.knowledge], match: 'edit'},
    {origin: 'promotion', version: 2, match: 'proposal', knowledge: [h.ids.knowledge]},
    {origin: 'unknown', knowledge: []},
  ])
  t.equal(lineKey('  12)  Check   <stock> FIRST.'), 'check <stock> first.')
})

t.test('blame: a line is a proposal\'s only when its promotion merge brought it, whatever a commit message says', async t => {
  const h = await memoryHistory()
  // pushed straight to main after the promotion, with the proposal's trailer in its message
  const direct = 'd'.repeat(40)
  const side = 'e'.repeat(40)
  const plainMerge = 'f'.repeat(40)
  const tip = h.mainline[h.mainline.length - 1]!
  const mainline: MainCommit[] = [
    ...h.mainline,
    {oid: direct, parents: [tip.oid], subject: 'tweak', trailers: {'Exp-Proposal': [h.ids.p1]}, skills: tip.skills},
    {oid: plainMerge, parents: [direct, side], subject: 'Merge branch side', trailers: {'Exp-Proposal': [h.ids.p1]}, skills: tip.skills},
  ]
  const lines = [
    {line: 1, text: '7. check <STOCK> first.', commit: direct, original_line: 1, via: direct},
    {line: 2, text: 'from a side branch', commit: side, original_line: 1, via: plainMerge},
  ]
  const b = blame(h.ledger, {skill: 'onboarding', path: 'skills/onboarding/SKILL.md', lines, mainline})
  t.match(b.lines[0], {origin: 'edit', version: 2, knowledge: []})
  t.notOk(b.lines[0]!.proposal ?? b.lines[0]!.decision ?? b.lines[0]!.merge, 'no proposal, decision or merge for a line nothing judged')
  t.match(b.lines[1], {origin: 'unknown', knowledge: []})
  t.notOk(b.lines[1]!.proposal)
})

// Found by an attack sweep: blame took the first accept that cites a proposal as its decision,
// so an accept of another proposal, copied with this one added to its cites, was shown as it.
t.test('blame names only a decision of the proposal itself, never one of another proposal that cites it', async t => {
  const h = await memoryHistory()
  const copy = h.ledger.load<'decision'>(h.ids.d1)
  await h.store.append({kind: 'decision', body: {...copy.body, proposal: h.ids.p2}, cites: [...copy.cites, h.ids.p1]}, {lane: 'evil'})
  const ledger = await h.store.ledger()
  const forged = ledger.select({kinds: ['decision']}).find(e => e.lane === 'evil')!.id
  // the real decision is not taken to count; the copy is
  const trust = {promotion: () => ({ok: true}), counts: (id: string) => id !== h.ids.d1}
  const lines = [{line: 1, text: '7. check <STOCK> first.', commit: OID.h1, original_line: 1, via: OID.m1}]
  const b = blame(ledger, {skill: 'onboarding', path: 'skills/onboarding/SKILL.md', lines, mainline: h.mainline}, trust)
  t.equal(b.lines[0]!.proposal, h.ids.p1)
  t.not(b.lines[0]!.decision, forged, 'the copy is not its decision')
  t.equal(b.lines[0]!.decision, undefined)
})

t.test("the decision a view shows for a proposal: an accept on the proposal's own lane before another lane's copy that sorts first", async t => {
  const {Ledger} = await import('../../src/store/ledger.js')
  const {shownDecision} = await import('../../src/projections/provenance-nodes.js')
  const entry = (id: string, kind: string, lane: string, lamport: number) => ({id, kind, digest: `sha256:${id.slice(3).padEnd(64, '0')}`, lane, ref: `refs/research/lanes/${lane}`, private: false, lamport, commit: '0'.repeat(40), cites: []}) as never
  const p = 'pr-' + '1'.repeat(24)
  const copy = {id: 'dc-' + 'a'.repeat(24), body: {verdict: 'accept', reasons: ['approved by security review']}}
  const honest = {id: 'dc-' + 'b'.repeat(24), body: {verdict: 'accept', reasons: []}}
  const reject = {id: 'dc-' + 'c'.repeat(24), body: {verdict: 'reject', reasons: ['no']}}
  const ledger = new Ledger([entry(p, 'proposal', 'honest', 5), entry(copy.id, 'decision', 'aaa', 6), entry(honest.id, 'decision', 'honest', 6), entry(reject.id, 'decision', 'zzz', 7)], () => {
    throw new Error('not loaded')
  })
  t.equal(ledger.entries[1]!.id, copy.id, 'the copy comes first in ledger order')
  t.equal(shownDecision(ledger, p, [copy, honest, reject])?.id, honest.id, "the proposal's own lane's accept")
  t.equal(shownDecision(ledger, p, [copy, reject])?.id, copy.id, 'else the first accept')
  t.equal(shownDecision(ledger, p, [reject])?.id, reject.id, 'else the last decision')
  t.equal(shownDecision(ledger, p, []), undefined)
})
