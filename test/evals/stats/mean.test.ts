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
