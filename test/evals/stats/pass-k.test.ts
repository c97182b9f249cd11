import t from 'tap'
import {meanPassAtK, meanPassHatK, passAtK, passHatK} from '../../../src/evals/stats/index.js'

const near = (a: number, b: number) => Math.abs(a - b) < 1e-12

t.test('pass@k = 1 − C(n−c,k)/C(n,k)', async t => {
  t.ok(near(passAtK(10, 3, 1), 0.3), 'k = 1 is the success rate')
  t.ok(near(passAtK(10, 3, 2), 1 - 21 / 45))
  t.equal(passAtK(10, 8, 3), 1, 'fewer failures than k: some attempt must pass')
  t.equal(passAtK(10, 0, 5), 0)
  t.ok(near(passAtK(200, 20, 10), 0.660225623763214), 'large n stays exact (no overflow)')
})

t.test('pass^k = C(c,k)/C(n,k)', async t => {
  t.ok(near(passHatK(10, 3, 1), 0.3))
  t.ok(near(passHatK(10, 3, 2), 3 / 45))
  t.equal(passHatK(10, 2, 3), 0, 'fewer passes than k')
  t.equal(passHatK(5, 5, 5), 1, 'all pass')
  t.ok(Math.abs(passHatK(200, 20, 10) - 8.229297783610822e-12) < 1e-20)
})

t.test('averaged over scenarios, each weighing the same', async t => {
  const runs = [{n: 10, c: 3}, {n: 4, c: 4}, {n: 5, c: 0}]
  t.ok(near(meanPassAtK(runs, 2), (1 - 21 / 45 + 1 + 0) / 3))
  t.ok(near(meanPassHatK(runs, 2), (3 / 45 + 1 + 0) / 3))
})

t.test('k outside 1..n, c > n and no scenarios are refused', async t => {
  t.throws(() => passAtK(3, 1, 4), {code: 'E_INVALID_INPUT'})
  t.throws(() => passAtK(3, 1, 0), {code: 'E_INVALID_INPUT'})
  t.throws(() => passHatK(3, 4, 1), {code: 'E_INVALID_INPUT'})
  t.throws(() => passAtK(0, 0, 1), {code: 'E_INVALID_INPUT'}, 'n = 0: nothing to estimate')
  t.throws(() => meanPassAtK([], 1), {code: 'E_INVALID_INPUT'})
})
