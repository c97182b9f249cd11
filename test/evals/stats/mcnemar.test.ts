import t from 'tap'
import {mcnemarExact, mcnemarPaired} from '../../../src/evals/stats/index.js'

t.test('exact two-sided p-values on discordant pairs', async t => {
  const near = (a: number, b: number) => Math.abs(a - b) < 1e-12
  t.ok(near(mcnemarExact(1, 9).pValue, 0.021484375), 'b=1, c=9 → 22/1024 ≈ 0.0215')
  t.equal(mcnemarExact(9, 1).pValue, mcnemarExact(1, 9).pValue, 'symmetric')
  t.ok(near(mcnemarExact(0, 6).pValue, 0.03125))
  t.ok(Math.abs(mcnemarExact(3, 12).pValue - 0.03515625) < 1e-15)
  t.equal(mcnemarExact(5, 5).pValue, 1, 'a balanced split is capped at 1')
})

t.test('no discordant pairs means no evidence: p = 1', async t => {
  t.same(mcnemarExact(0, 0), {b: 0, c: 0, pValue: 1})
  t.equal(mcnemarPaired([true, false, true], [true, false, true]).pValue, 1)
  t.equal(mcnemarPaired([], []).pValue, 1)
})

t.test('large counts stay finite (log-space terms)', async t => {
  const p = mcnemarExact(400, 600).pValue
  t.ok(Math.abs(p - 2.7284641560660184e-10) / 2.7284641560660184e-10 < 1e-9, `${p}`)
  t.ok(mcnemarExact(3000, 3000).pValue === 1)
})

t.test('paired outcomes count who won each discordant scenario', async t => {
  const before = [true, true, false, false, true, false]
  const after = [true, false, true, true, true, true]
  const r = mcnemarPaired(before, after)
  t.same([r.b, r.c], [1, 3])
  t.ok(Math.abs(r.pValue - 0.625) < 1e-12)
  t.throws(() => mcnemarPaired([true], []), {code: 'E_INVALID_INPUT'})
})
