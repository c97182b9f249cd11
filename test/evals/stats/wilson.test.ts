import t, {type Test} from 'tap'
import {normalQuantile, wilson, zFor} from '../../../src/evals/stats/index.js'

const close = (t: Test, got: number, want: number, eps = 1e-6, msg?: string) => t.ok(Math.abs(got - want) < eps, `${msg ?? ''} ${got} ≈ ${want}`)

t.test('normal quantiles match reference values (scipy.stats.norm.ppf)', async t => {
  close(t, normalQuantile(0.975), 1.959963984540054, 1e-8)
  close(t, normalQuantile(0.995), 2.5758293035489004, 1e-8)
  close(t, normalQuantile(0.001), -3.090232306167813, 1e-8)
  t.equal(normalQuantile(0.5), 0)
  close(t, zFor(0.9), 1.6448536269514722, 1e-8)
  t.throws(() => normalQuantile(1), {code: 'E_INVALID_INPUT'})
})

t.test('Wilson 8/10 at 95% is about [0.490, 0.943]', async t => {
  const w = wilson(8, 10)
  t.equal(w.estimate, 0.8)
  close(t, w.low, 0.49016247153664183)
  close(t, w.high, 0.9433178485456247)
})

t.test('confidence or z choose the width', async t => {
  const w90 = wilson(8, 10, {confidence: 0.9})
  close(t, w90.low, 0.540792805687488)
  close(t, w90.high, 0.931442012262468)
  close(t, wilson(8, 10, {z: 1.6448536269514722, confidence: 0.5}).low, w90.low, 1e-8, 'z wins over confidence:')
  close(t, wilson(50, 100).low, 0.4038315303659956)
})

t.test('edges: no trials, none pass, all pass', async t => {
  t.same(wilson(0, 0), {estimate: 0, low: 0, high: 1})
  const none = wilson(0, 10)
  t.equal(none.low, 0)
  close(t, none.high, 0.2775327998628892)
  const all = wilson(10, 10)
  t.equal(all.high, 1, 'exactly 1, not 0.9999999999999999')
  close(t, all.low, 0.7224672001371107)
})

t.test('bad counts are refused', async t => {
  t.throws(() => wilson(11, 10), {code: 'E_INVALID_INPUT'})
  t.throws(() => wilson(-1, 10), {code: 'E_INVALID_INPUT'})
  t.throws(() => wilson(1.5, 10), {code: 'E_INVALID_INPUT'})
  t.throws(() => wilson(1, 10, {confidence: 1}), {code: 'E_INVALID_INPUT'})
})
