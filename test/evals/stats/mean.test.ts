import t from 'tap'
import {mean, meanScoreVector, successRate} from '../../../src/evals/stats/index.js'

t.test('mean and success rate', async t => {
  t.equal(mean([1, 2, 3, 4]), 2.5)
  t.equal(successRate([true, false, true, true]), 0.75)
  t.equal(successRate([true, true]), 1, 'all pass')
  t.throws(() => mean([]), {code: 'E_INVALID_INPUT'})
})

t.test('score vectors are averaged per dimension', async t => {
  t.same(meanScoreVector([{success: 1, tools: 4}, {tools: 2, success: 0}]), {success: 0.5, tools: 3})
  t.throws(() => meanScoreVector([{success: 1}, {success: 1, tools: 2}]), {code: 'E_INVALID_INPUT'}, 'a missing dimension is not a zero')
  t.throws(() => meanScoreVector([]), {code: 'E_INVALID_INPUT'})
})

// Found by a sweep: a metric of 1e303 was rounded to Infinity (x * 1e6 overflows), shown as
// "score 1 -> Infinity" and as null in --json.
t.test('round6 rounds to six decimals, and leaves a number too large to scale as it is', async t => {
  const {round6} = await import('../../../src/evals/stats/index.js')
  t.equal(round6(1.23456789), 1.234568)
  t.equal(round6(-0.0000004), -0)
  t.equal(round6(1e303), 1e303)
  t.equal(round6(-1.5e305), -1.5e305)
  t.ok(Number.isFinite(round6(Number.MAX_VALUE)))
})
