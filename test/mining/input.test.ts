import t from 'tap'
import {mineEvidence, usable} from '../../src/mining/index.js'
import {isExpError} from '../../src/errors/index.js'
import {run, runs, shuffled} from '../helpers/mining.js'

const sample = () => runs({
  a1: {task: 'A', passed: true, steps: ['get_person', {tool: 'get_stock', args: {item: 'pad'}}, {tool: 'hand_out', args: {item: 'pad'}}]},
  a2: {task: 'A', passed: false, steps: ['get_person', {tool: 'hand_out', args: {item: 'pad'}}]},
  a3: {task: 'A', passed: false, steps: ['get_person', 'hand_out!EMPTY']},
  b1: {task: 'B', passed: true, steps: ['get_person', {tool: 'get_stock', args: {item: 'pad'}}, {tool: 'hand_out', args: {item: 'pad'}}, 'notify']},
  b2: {task: 'B', passed: false, steps: ['get_person', 'hand_out!EMPTY', 'notify']},
  b3: {task: 'B', passed: true, steps: ['get_person', 'hand_out!EMPTY', 'order', 'notify']},
  b4: {task: 'B', passed: false, steps: ['get_person', 'hand_out!EMPTY']},
})

t.test('the miner refuses anything but train traces, naming the trace', async t => {
  const bad = run('v1', {task: 'A', passed: true, steps: ['get_person'], split: 'validation'})
  const err = (() => {
    try {
      mineEvidence([...sample().traces, bad])
    } catch (e) {
      return e
    }
  })()
  t.ok(isExpError(err) && err.code === 'E_SPLIT' && err.exit === 2, 'a typed E_SPLIT error, exit 2')
  t.match((err as Error).message, bad.id)
  const held = run('h1', {task: 'A', passed: true, steps: ['get_person'], split: 'holdout'})
  t.throws(() => mineEvidence([held]), {code: 'E_SPLIT', data: {what: 'trace', id: held.id, split: 'holdout'}})
})

t.test('a verification from another split, or of another trace, is refused', async t => {
  const [a, b] = sample().traces
  const mixed = {...a!, verification: {...a!.verification, body: {...a!.verification.body, split: 'holdout' as const}}}
  t.throws(() => mineEvidence([mixed]), {code: 'E_SPLIT'})
  const swapped = {...a!, verification: b!.verification}
  t.throws(() => mineEvidence([swapped]), {code: 'E_INVALID_INPUT'})
})

t.test('episodes without a valid verdict are never evidence: they are left out and listed', async t => {
  const crash = run('x1', {task: 'A', passed: false, steps: ['get_person', 'hand_out!EMPTY'], valid: false})
  const {views, skipped} = usable([...sample().traces, crash])
  t.equal(views.length, 7)
  t.same(skipped, [crash.id])
  t.same(mineEvidence([...sample().traces, crash]), mineEvidence(sample().traces))
})

t.test('the same runs in any order give byte-identical evidence', async t => {
  const traces = sample().traces
  const first = JSON.stringify(mineEvidence(traces))
  t.ok(JSON.parse(first).length > 0, 'something was found')
  for (const seed of [1, 2, 3]) t.equal(JSON.stringify(mineEvidence(shuffled(traces, seed))), first, `shuffle ${seed}`)
  t.equal(JSON.stringify(mineEvidence([...traces].reverse())), first, 'reversed')
})

t.test('evidence records name the miner, the window and the workflows of their runs', async t => {
  const [e] = mineEvidence(sample().traces)
  t.match(e, {miner: {name: 'exp-miner', version: '2'}, window: {traces: 7, manifests: [/^mf-/]}})
  t.equal(e!.support, e!.supporting.length)
  t.equal(e!.failures, e!.counterexamples.length)
})
