import t from 'tap'
import {validateLane, sanitizeLane, resolveLane, laneRef} from '../../src/store/index.js'

t.test('lane names that could escape refs/research/ or upset git are refused', async t => {
  for (const bad of ['', '..', 'a..b', 'a/b', '../x', '-x', '.x', 'x.lock', 'a.lock.b', 'x.', 'a b', 'tab\there', 'nul\u0000', 'x~1', 'x^', 'x:y', 'a@{1}', 'x*', '[x]', 'a\\b']) {
    t.throws(() => validateLane(bad), {code: 'E_INVALID_NAME'}, JSON.stringify(bad))
  }
  for (const good of ['alice', 'ci', 'alice@host-1', 'a.b_c+d-e', 'A1']) t.equal(validateLane(good), good)
  t.equal(laneRef('x', true), 'refs/research/private/x')
})

t.test('the lane comes from --lane, then EXP_LANE, then git config, then user@host', async t => {
  t.same(resolveLane({flag: 'f', env: {EXP_LANE: 'e'}, gitConfig: 'g'}), {lane: 'f', source: 'flag'})
  t.same(resolveLane({env: {EXP_LANE: 'e'}, gitConfig: 'g'}), {lane: 'e', source: 'env'})
  t.same(resolveLane({env: {}, gitConfig: 'g'}), {lane: 'g', source: 'git-config'})
  t.same(resolveLane({env: {}, user: 'Jane Doe', host: 'box.local'}), {lane: 'Jane-Doe@box.local', source: 'user@host'})
  t.throws(() => resolveLane({flag: '../x'}), {code: 'E_INVALID_NAME'})
})

t.test('sanitizing always yields a valid lane', async t => {
  for (const raw of ['root@vm', '..@..', 'x.lock', '  ', 'é@ü', '-a-']) t.doesNotThrow(() => validateLane(sanitizeLane(raw)), raw)
})
