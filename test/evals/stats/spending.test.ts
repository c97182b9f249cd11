import t from 'tap'
import {lookLevel, mcnemarOneSided, mcnemarExact, spent} from '../../../src/evals/stats/index.js'

const near = (a: number, b: number, eps = 1e-6) => Math.abs(a - b) < eps

t.test('the one-sided exact McNemar p is the upper binomial tail of the wins', async t => {
  t.ok(near(mcnemarOneSided(5, 0), 1 / 32, 1e-15), '5-0: 2^-5')
  t.ok(near(mcnemarOneSided(9, 1), 11 / 1024, 1e-15), '9-1: 11/1024')
  t.equal(mcnemarOneSided(0, 0), 1)
  t.equal(mcnemarOneSided(0, 4), 1, 'no win: no evidence of being better')
  t.ok(mcnemarOneSided(3, 3) > 0.5)
  t.ok(near(mcnemarOneSided(9, 1) * 2, mcnemarExact(9, 1).pValue, 1e-15), 'half the two-sided p when it is not capped')
  t.ok(mcnemarOneSided(600, 400) < 1e-9 && mcnemarOneSided(600, 400) > 0, 'large counts stay finite')
})

t.test('alpha spending: the looks share the error and never spend more than alpha', async t => {
  for (const how of ['pocock', 'obrien-fleming'] as const) {
    for (const looks of [1, 2, 3, 5, 10]) {
      const levels = Array.from({length: looks}, (_, i) => lookLevel(0.05, i + 1, looks, how))
      t.ok(near(levels.reduce((s, x) => s + x, 0), 0.05, 1e-12), `${how}, ${looks} looks: the shares add up to alpha`)
      t.ok(levels.every(x => x > 0 || (how === 'obrien-fleming' && x >= 0)), 'no negative share')
    }
    t.equal(lookLevel(0.05, 4, 3, how), 0, 'past the last look nothing is left')
  }
  t.equal(lookLevel(0.05, 1, 1, 'pocock'), 0.05, 'one look: the fixed-size test')
  t.ok(near(spent(0.05, 1 / 3, 'pocock'), 0.05 * Math.log(1 + (Math.E - 1) / 3)), 'Pocock-type: alpha ln(1 + (e-1) t)')
  t.ok(spent(0.05, 1 / 3, 'obrien-fleming') < 0.001, 'O\'Brien-Fleming-type spends almost nothing early')
  t.ok(lookLevel(0.05, 1, 3, 'pocock') > lookLevel(0.05, 3, 3, 'pocock'), 'Pocock-type spends more at the first look than at the last')
  t.throws(() => lookLevel(0.05, 0, 3, 'pocock'), {code: 'E_INVALID_INPUT'})
  t.throws(() => spent(1.5, 0.5, 'pocock'), {code: 'E_INVALID_INPUT'})
})

t.test('the union bound holds in simulation: a null comparison looked at three times is accepted at most alpha of the time', async t => {
  // 20,000 null comparisons of 3 passes of 16 pairs, 30% discordant, a fair coin for each discordant pair
  let state = 12345
  const rand = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296)
  let accepted = 0
  const trials = 20000
  for (let i = 0; i < trials; i++) {
    let w = 0
    let l = 0
    for (let look = 1; look <= 3; look++) {
      for (let k = 0; k < 16; k++) {
        if (rand() >= 0.3) continue
        if (rand() < 0.5) w++
        else l++
      }
      if (mcnemarOneSided(w, l) <= lookLevel(0.05, look, 3, 'pocock')) {
        accepted++
        break
      }
    }
  }
  t.ok(accepted / trials <= 0.05, `false accepts ${accepted} of ${trials}`)
})
