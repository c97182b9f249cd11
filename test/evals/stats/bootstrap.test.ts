import t from 'tap'
import {pairedBootstrapDiff, quantile, seededRandom} from '../../../src/evals/stats/index.js'

const zeros = (n: number) => Array.from({length: n}, () => false)

t.test('the same seed gives the same interval', async t => {
  const a = [true, false, true, false, false, true, false, false, true, false]
  const b = [true, true, true, false, true, true, false, true, true, false]
  const one = pairedBootstrapDiff(a, b, {random: seededRandom(42), resamples: 2000})
  t.same(pairedBootstrapDiff(a, b, {random: seededRandom(42), resamples: 2000}), one)
  t.equal(one.estimate, 0.3)
  t.ok(one.low <= one.estimate && one.estimate <= one.high)
  t.same([one.resamples, one.level], [2000, 0.95])
})

t.test('half the scenarios gained, none lost: about 0.5 ± 0.2', async t => {
  // the resampled mean of 20 fair coin flips: sd √(0.25/20) ≈ 0.112, so ≈ [0.30, 0.70]
  const b = Array.from({length: 20}, (_, i) => i % 2 === 0)
  const ci = pairedBootstrapDiff(zeros(20), b, {random: seededRandom(1), resamples: 20_000})
  t.equal(ci.estimate, 0.5)
  t.ok(Math.abs(ci.low - 0.3) <= 0.05, `low ${ci.low}`)
  t.ok(Math.abs(ci.high - 0.7) <= 0.05, `high ${ci.high}`)
  const wide = pairedBootstrapDiff(zeros(20), b, {random: seededRandom(1), resamples: 20_000, level: 0.99})
  t.ok(wide.low < ci.low && wide.high > ci.high, 'a higher level widens the interval')
})

t.test('no difference, or the same difference everywhere, gives a point', async t => {
  t.same(pairedBootstrapDiff([1, 0, 1], [1, 0, 1], {random: seededRandom(5), resamples: 100}), {estimate: 0, low: 0, high: 0, resamples: 100, level: 0.95})
  const all = pairedBootstrapDiff(zeros(5), [1, 1, 1, 1, 1], {random: seededRandom(5), resamples: 100})
  t.same([all.low, all.high], [1, 1])
})

t.test('rates per scenario are accepted, bad input is not', async t => {
  t.equal(pairedBootstrapDiff([0.5, 0.25], [0.75, 0.25], {random: seededRandom(2), resamples: 10}).estimate, 0.125)
  const opts = {random: seededRandom(2)}
  t.throws(() => pairedBootstrapDiff([], [], opts), {code: 'E_INVALID_INPUT'})
  t.throws(() => pairedBootstrapDiff([1], [1, 0], opts), {code: 'E_INVALID_INPUT'})
  t.throws(() => pairedBootstrapDiff([2], [1], opts), {code: 'E_INVALID_INPUT'})
  t.throws(() => pairedBootstrapDiff([1], [1], {...opts, resamples: 0}), {code: 'E_INVALID_INPUT'})
  t.throws(() => pairedBootstrapDiff([1], [1], {...opts, level: 1.5}), {code: 'E_INVALID_INPUT'})
})

t.test('quantiles interpolate between order statistics', async t => {
  t.equal(quantile([1, 2, 3, 4], 0.5), 2.5)
  t.equal(quantile([1, 2, 3, 4], 0), 1)
  t.equal(quantile([1, 2, 3, 4], 1), 4)
})

t.test('the seeded stream is uniform-looking and reproducible', async t => {
  const r = seededRandom(123)
  const xs = Array.from({length: 10_000}, r)
  t.ok(xs.every(x => x >= 0 && x < 1))
  t.ok(Math.abs(xs.reduce((s, x) => s + x, 0) / xs.length - 0.5) < 0.02)
  t.same(Array.from({length: 3}, seededRandom(123)), xs.slice(0, 3))
})
