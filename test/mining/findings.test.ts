import t from 'tap'
import {mineEvidence} from '../../src/mining/index.js'
import {runs} from '../helpers/mining.js'

const find = (ev: ReturnType<typeof mineEvidence>, signature: string) => ev.find(e => e.signature === signature)

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
