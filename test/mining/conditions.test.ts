import t from 'tap'
import {renderRule} from '../../src/knowledge/index.js'
import {mergeKnowledge, mineEvidence} from '../../src/mining/index.js'
import {prepare} from '../../src/records/index.js'
import type {EvidenceBody} from '../../src/records/types.js'
import {runs, type RunSpec, type Step} from '../helpers/mining.js'

// Conditions and exceptions (docs/mining.md): counterexamples a rule's effect does not explain
// are left out by the narrowest condition that separates them from the supporting runs, when
// one holds across tasks; otherwise the rule stays a candidate that is never proposed.

const person = (id: string, kind: string, badges: string[] = []): Step => ({tool: 'get_person', args: {person: id}, result: {id, kind, badges, pending_info: []}})
const rules = (door: string): Step => ({tool: 'get_rules', args: {door}, result: {door, requires_approval: true}})
const ask = (id: string, door: string): Step => ({tool: 'ask_guard', args: {person: id, door}})
const open = (id: string, door: string): Step => ({tool: 'open_door', args: {person: id, door}})
const handOut = (id: string): Step => ({tool: 'hand_out', args: {person: id, item: 'pad'}})
const lines = (ev: EvidenceBody[]) => ev.filter(e => e.rule).map(e => renderRule(e.rule!))
const mine = (specs: Record<string, RunSpec>) => {
  const r = runs(specs)
  const ev = mineEvidence(r.traces)
  return {ev, id: r.id, knowledge: mergeKnowledge(ev.map(body => ({id: prepare({kind: 'evidence', body}).id, body})), [])}
}

/** Guests get nothing handed out; staff do. Two guest tasks, three staff tasks, three runs each. */
function guests(): Record<string, RunSpec> {
  const out: Record<string, RunSpec> = {}
  for (const [task, id, kind] of [['G1', 'P-1', 'guest'], ['G2', 'P-2', 'guest'], ['S1', 'P-3', 'staff'], ['S2', 'P-4', 'staff'], ['S3', 'P-5', 'staff']] as const) {
    const guest = kind === 'guest'
    out[`${task}a`] = {task, passed: !guest, steps: [person(id, kind), handOut(id), 'close_case']}
    out[`${task}b`] = {task, passed: guest, steps: [person(id, kind), 'close_case']}
    out[`${task}c`] = {task, passed: !guest, steps: [person(id, kind), handOut(id), 'close_case']}
  }
  return out
}

t.test('a call that hurts in one situation only: never, when a read shows that situation', async t => {
  const {ev, id} = mine(guests())
  const e = ev.find(x => x.rule?.kind === 'never' && x.rule.tool === 'hand_out')
  t.equal(e && renderRule(e.rule!), 'Never call `hand_out` when `get_person` shows `kind` is `guest`.')
  t.same(e?.supporting, id('G1a', 'G1b', 'G1c', 'G2a', 'G2b', 'G2c'))
  t.same([e?.counterexamples, e?.unexplained], [[], []])
  t.same(e?.excluded, id('S1a', 'S1b', 'S1c', 'S2a', 'S2b', 'S2c', 'S3a', 'S3b', 'S3c'), 'the staff runs, which refute the plain rule, are outside it')
})

t.test('a situation seen in one task only is a coincidence: no condition, and the plain rule is not kept', async t => {
  const specs = guests()
  for (const k of Object.keys(specs)) if (k.startsWith('G2')) delete specs[k]
  t.same(lines(mine(specs).ev).filter(l => l.includes('`hand_out`') && l.startsWith('Never')), [])
})

/** A door needs the guard's approval, unless the person's badge already opens it (asking again is a failure). */
function doors(): Record<string, RunSpec> {
  const out: Record<string, RunSpec> = {}
  const tasks = [['A1', 'P-1', 'd1', []], ['A2', 'P-2', 'd2', []], ['A3', 'P-3', 'd3', ['d9']], ['B1', 'P-4', 'd4', ['d4']], ['B2', 'P-5', 'd5', ['d5', 'd1']]] as const
  for (const [task, id, door, badges] of tasks) {
    const onRecord = badges.includes(door as never)
    const careful = [person(id, 'staff', [...badges]), rules(door), ask(id, door), open(id, door)]
    const quick = [person(id, 'staff', [...badges]), open(id, door)]
    out[`${task}a`] = {task, passed: !onRecord, steps: careful}
    out[`${task}b`] = {task, passed: onRecord, steps: quick}
    out[`${task}c`] = {task, passed: !onRecord, steps: careful}
  }
  return out
}

t.test('an exception: the rule is refuted exactly where a read shows the item on record', async t => {
  const {ev, id, knowledge} = mine(doors())
  const best = ev.filter(e => e.rule?.kind === 'before' && e.rule.tool === 'open_door').map(e => [renderRule(e.rule!), e.unexplained])
  t.same(best.find(([l]) => (l as string).includes('unless')), ['Before `open_door`, call `get_rules` and `ask_guard` when the policy requires it, unless `get_person` shows `badges` includes the `door`.', []])
  const plain = ev.find(e => e.rule && renderRule(e.rule) === 'Before `open_door`, call `get_rules` and `ask_guard` when the policy requires it.')
  if (plain) t.same(plain.unexplained, id('B1a', 'B1b', 'B1c', 'B2a', 'B2b', 'B2c'), 'without the exception its counterexamples are not explained')
  const claims = new Map(knowledge.map(k => [k.body.claim.text, k.body]))
  t.equal(claims.get(best.find(([l]) => (l as string).includes('unless'))![0] as string)?.status, 'active')
  if (plain) {
    const k = claims.get('Before `open_door`, call `get_rules` and `ask_guard` when the policy requires it.')!
    t.equal(k.status, 'candidate')
    t.match(k.status_reason, /6 counterexample\(s\) its conditions do not explain/)
  }
})

t.test('counterexamples another rule accounts for are explained; a check that only reads changes nothing', async t => {
  const stock = (left: number): Step => ({tool: 'get_stock', args: {item: 'pad'}, result: {items: [{item: 'pad', left}]}})
  const p = person('P-1', 'staff')
  const {ev} = mine({
    // the check is followed, the run fails because it never closes the case (which another rule says)
    a1: {task: 'A', passed: true, steps: [p, stock(3), handOut('P-1'), 'close_case']},
    a2: {task: 'A', passed: false, steps: [p, stock(3), handOut('P-1')]},
    a3: {task: 'A', passed: false, steps: [p, handOut('P-1')]},
    b1: {task: 'B', passed: true, steps: [p, stock(2), handOut('P-1'), 'close_case']},
    b2: {task: 'B', passed: false, steps: [p, handOut('P-1'), 'close_case']},
    b3: {task: 'B', passed: true, steps: [p, handOut('P-1'), 'close_case']},
  })
  const check = ev.find(e => e.signature === 'missing_check:before:hand_out<get_stock')
  t.ok(check)
  t.same(check?.unexplained, [], 'a2 followed and failed, but another run of its task followed and passed; b3 broke a check that only reads')
})

t.test('a failing run is not excused by a passing run of its task that reacted differently', async t => {
  const {usable} = await import('../../src/mining/evidence.js')
  const {contextOf} = await import('../../src/mining/context.js')
  const {tally} = await import('../../src/mining/score.js')
  const {unexplainedRuns} = await import('../../src/mining/explain.js')
  const empty: Step = {tool: 'hand_out', code: 'EMPTY', args: {item: 'pad'}}
  const specs: Record<string, RunSpec> = {}
  for (const task of ['T1', 'T2', 'T3']) {
    specs[`${task}a`] = {task, passed: true, steps: [empty, 'note', 'order']}
    specs[`${task}b`] = {task, passed: false, steps: [empty, 'order']}
    // the same reaction as a, failing for another reason: excused by a
    specs[`${task}c`] = {task, passed: false, steps: [empty, 'note', 'order']}
  }
  const r = runs(specs)
  const {views} = usable(r.traces)
  const ctx = contextOf(views)
  const order = {kind: 'on_error' as const, tool: 'hand_out', code: 'EMPTY', calls: ['order'], stop: false}
  t.same(unexplainedRuns(order, tally(order, views, ctx), views, ctx, []), r.id('T1b', 'T2b', 'T3b'), 'the runs that only ordered: the passing runs also made a note')
  const both = {...order, calls: ['note', 'order']}
  t.same(unexplainedRuns(both, tally(both, views, ctx), views, ctx, []), [], 'the runs that reacted as the passing ones did are excused')
})
