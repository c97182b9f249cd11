import t from 'tap'
import {mineEvidence} from '../../src/mining/index.js'
import {runs} from '../helpers/mining.js'

// Each set below is two tasks run three times, so that every rule is compared within a task.
const person = {tool: 'get_person', args: {person: 'P-1'}, result: {id: 'P-1', name: 'Ada Park', team: 'design', pending_info: []}}
const stock = {tool: 'get_stock', args: {item: 'pad'}, result: {items: [{item: 'pad', left: 3}]}}
const handOut = {tool: 'hand_out', args: {person: 'P-1', item: 'pad'}}
const find = (ev: ReturnType<typeof mineEvidence>, signature: string) => ev.find(e => e.signature === signature)

t.test('a check that passing runs make before an action and failing runs skip is a missing check', async t => {
  const r = runs({
    a1: {task: 'A', passed: true, steps: [person, stock, handOut]},
    a2: {task: 'A', passed: true, steps: [person, stock, handOut]},
    a3: {task: 'A', passed: false, steps: [person, handOut]},
    b1: {task: 'B', passed: true, steps: [person, stock, handOut]},
    b2: {task: 'B', passed: false, steps: [person, handOut]},
    b3: {task: 'B', passed: false, steps: [person, handOut]},
    b4: {task: 'B', passed: true, steps: [person, handOut]},
  })
  const ev = mineEvidence(r.traces)
  const e = find(ev, 'missing_check:before:hand_out<get_stock')
  t.ok(e, 'found')
  t.same(e?.rule, {kind: 'before', tool: 'hand_out', calls: [{tool: 'get_stock'}]})
  t.same(e?.supporting, r.id('a1', 'a2', 'a3', 'b1', 'b2', 'b3'))
  t.same(e?.counterexamples, r.id('b4'))
  t.equal(e?.support, 6)
  t.equal(e?.failures, 1)
  // the lookup precedes every hand-out in every run: it tells passing from failing runs apart nowhere
  t.notOk(ev.some(x => x.signature.includes('<get_person')), 'a call that always precedes is not a missing check')
})

t.test('what passing runs do after an error is a recovery strategy', async t => {
  const r = runs({
    c1: {task: 'C', passed: true, steps: [person, 'hand_out!EMPTY', 'order', 'flag', 'notify']},
    c2: {task: 'C', passed: true, steps: [person, 'hand_out!EMPTY', 'order', 'flag', 'get_case']},
    c3: {task: 'C', passed: false, steps: [person, 'hand_out!EMPTY', 'notify']},
    d1: {task: 'D', passed: true, steps: [person, 'hand_out!EMPTY', 'order', 'flag']},
    d2: {task: 'D', passed: false, steps: [person, 'hand_out!EMPTY']},
    d3: {task: 'D', passed: false, steps: [person, 'hand_out!EMPTY', 'hand_out']},
  })
  const e = find(mineEvidence(r.traces), 'recovery_strategy:on_error:hand_out!EMPTY>order>flag')
  t.same(e?.rule, {kind: 'on_error', tool: 'hand_out', code: 'EMPTY', calls: ['order', 'flag'], stop: false})
  t.same(e?.supporting, r.id('c1', 'c2', 'c3', 'd1', 'd2', 'd3'))
  t.same(e?.counterexamples, [])
  t.same(e?.tools, ['flag', 'hand_out', 'order'])
})

t.test('a result that should stop the work: passing runs escalate and stop, failing runs carry on', async t => {
  const pending = {...person, result: {...person.result, pending_info: ['start date']}}
  const r = runs({
    e1: {task: 'E', passed: true, steps: [pending, 'escalate']},
    e2: {task: 'E', passed: true, steps: [pending, 'escalate']},
    e3: {task: 'E', passed: false, steps: [pending, handOut]},
    f1: {task: 'F', passed: false, steps: [pending, handOut]},
    f2: {task: 'F', passed: true, steps: [pending, 'escalate']},
    f3: {task: 'F', passed: false, steps: [pending, 'escalate', handOut]},
  })
  const e = find(mineEvidence(r.traces), 'incorrect_assumption:on_result:get_person?pending_info>escalate.')
  t.same(e?.rule, {kind: 'on_result', tool: 'get_person', result: 'pending_info', calls: ['escalate'], stop: true})
  t.same(e?.supporting, r.id('e1', 'e2', 'e3', 'f1', 'f2', 'f3'))
})

t.test('a record that contradicts the task: the values a field takes are learned from the results', async t => {
  const as = (team: string, name = 'Ada Park') => ({...person, result: {...person.result, team, name}})
  const text = 'Ada Park joins the design team.'
  const r = runs({
    g1: {task: 'G', text, passed: true, steps: [as('sales'), 'escalate']},
    g2: {task: 'G', text, passed: false, steps: [as('sales'), handOut]},
    g3: {task: 'G', text, passed: false, steps: [as('sales'), handOut]},
    // the same field, told right: no contradiction, nothing to learn from these
    h1: {task: 'H', text, passed: true, steps: [as('design'), handOut]},
    h2: {task: 'H', text: 'Ada Park needs a pad.', passed: true, steps: [as('design'), handOut]},
    i1: {task: 'I', text: 'Bo Lind joins the sales team.', passed: true, steps: [as('design', 'Bo Lind'), 'escalate']},
    i2: {task: 'I', text: 'Bo Lind joins the sales team.', passed: false, steps: [as('design', 'Bo Lind'), handOut]},
  })
  const e = find(mineEvidence(r.traces), 'incorrect_assumption:on_result:get_person?contradicts_task>escalate.')
  t.same(e?.supporting, r.id('g1', 'g2', 'g3', 'i1', 'i2'))
  t.same(e?.counterexamples, [])
})

t.test('completing while a result reports open blockers is a termination failure', async t => {
  const open = {open_blockers: 1}
  const look = {tool: 'get_case', args: {case: 'C-1'}, result: open}
  const close = {tool: 'close_case', args: {case: 'C-1'}, result: open}
  const r = runs({
    g1: {task: 'G', passed: true, steps: [look]},
    g2: {task: 'G', passed: true, steps: [look]},
    g3: {task: 'G', passed: false, steps: [close]},
    h1: {task: 'H', passed: false, steps: [close]},
    h2: {task: 'H', passed: true, steps: [look]},
    h3: {task: 'H', passed: false, steps: [look, close]},
  })
  const ev = mineEvidence(r.traces)
  const e = find(ev, 'termination_failure:never:close_case~open_blockers')
  t.same(e?.rule, {kind: 'never', tool: 'close_case', while: 'open_blockers'})
  t.same(e?.supporting, r.id('g1', 'g2', 'g3', 'h1', 'h2', 'h3'))
  t.equal(ev.filter(x => x.signature.startsWith('termination_failure:')).length, 1, 'one finding, with its rule')
  t.notOk(find(ev, 'unnecessary_call:never:close_case'), '"never" without its condition says the same less precisely')
})

t.test('an error that failing runs keep hitting is a failure mode, described with what preceded it', async t => {
  const r = runs({
    x1: {task: 'X', passed: false, steps: ['get_person', 'hand_out!EMPTY']},
    x2: {task: 'X', passed: false, steps: ['get_person', 'hand_out!EMPTY']},
    y1: {task: 'Y', passed: false, steps: ['get_person', 'hand_out!EMPTY', 'notify']},
    y2: {task: 'Y', passed: true, steps: ['get_person', 'get_stock', 'hand_out']},
  })
  const e = find(mineEvidence(r.traces), 'failure_mode:hand_out!EMPTY')
  t.equal(e?.pattern, 'failure_mode')
  t.same(e?.supporting, r.id('x1', 'x2', 'y1'))
  t.same(e?.counterexamples, [])
  t.equal(e?.rule, undefined, 'a failure mode alone proposes no rule')
  t.match(e?.description, /`hand_out` failed with `EMPTY` in 3 failing run\(s\) and 0 passing run\(s\), most often right after `get_person` \(3\)\. Those runs failed on: goal \(3\)\./)
})

t.test('two calls back to back that only failing runs make are a bad sequence', async t => {
  const r = runs({
    z1: {task: 'Z', passed: false, steps: ['get_person', 'notify', 'hand_out']},
    z2: {task: 'Z', passed: false, steps: ['get_person', 'notify', 'hand_out']},
    z3: {task: 'Z', passed: false, steps: ['get_person', 'notify', 'hand_out']},
    w1: {task: 'Z', passed: true, steps: ['get_person', 'hand_out', 'notify']},
  })
  const e = find(mineEvidence(r.traces), 'bad_sequence:notify>hand_out')
  t.same(e?.supporting, r.id('z1', 'z2', 'z3'))
  t.same(e?.tools, ['hand_out', 'notify'])
})

t.test('a call that failing runs make and passing runs of the same task never make is unnecessary', async t => {
  const r = runs({
    k1: {task: 'K', passed: true, steps: ['get_person', 'hand_out']},
    k2: {task: 'K', passed: false, steps: ['get_person', 'wipe', 'hand_out']},
    k3: {task: 'K', passed: false, steps: ['get_person', 'wipe']},
    l1: {task: 'L', passed: true, steps: ['get_person', 'notify']},
    l2: {task: 'L', passed: false, steps: ['get_person', 'wipe', 'notify']},
    l3: {task: 'L', passed: true, steps: ['get_person', 'notify']},
  })
  const ev = mineEvidence(r.traces)
  const e = find(ev, 'unnecessary_call:never:wipe')
  t.same(e?.rule, {kind: 'never', tool: 'wipe'})
  t.same(e?.supporting, r.id('k1', 'k2', 'k3', 'l1', 'l2', 'l3'))
  // passing runs hand out and notify: those calls are not unnecessary
  t.notOk(find(ev, 'unnecessary_call:never:hand_out'))
  t.notOk(find(ev, 'unnecessary_call:never:notify'))
})

t.test('findings below the minimum support are left out; the minimum is an option', async t => {
  const r = runs({
    x1: {task: 'X', passed: false, steps: ['hand_out!EMPTY']},
    x2: {task: 'X', passed: false, steps: ['hand_out!EMPTY']},
  })
  t.notOk(find(mineEvidence(r.traces), 'failure_mode:hand_out!EMPTY'))
  t.ok(find(mineEvidence(r.traces, {minSupport: 2}), 'failure_mode:hand_out!EMPTY'))
})
