import t from 'tap'
import {recordedBoundary} from '../../src/attempts/evaluate.js'
import {makeRedactor} from '../../src/redact/index.js'
import {secretScanner} from '../../src/redact/secrets.js'

// Found by an attack sweep: a changed file named like a token made the observation a secret
// (refused: the attempt stayed open, its violation never recorded), and an attempt changing
// 30,000 files made an observation over the 1 MiB of a record.
t.test('a recorded boundary: paths redacted, each list cut to 1,000 with a count of the rest', async t => {
  const redact = makeRedactor({env: {}})
  const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB'
  const many = Array.from({length: 30_000}, (_, i) => `data/f${i}.json`)
  const b = recordedBoundary({clean: false, changed: [`${token}.txt`, ...many], outside: [`${token}.txt`]}, redact)
  t.notOk(JSON.stringify(b).includes(token), 'no token')
  t.equal(b.changed.length, 1001)
  t.equal(b.changed[1000], '(and 29001 more)')
  t.same(b.outside, ['[redacted].txt'])
  t.equal(b.clean, false)
  t.ok(JSON.stringify(b).length < 64 * 1024)
  t.equal(secretScanner({})(JSON.stringify(b)), undefined, 'nothing a record refuses as a secret')
  t.ok(secretScanner({})(JSON.stringify({changed: [`${token}.txt`]})), '(which the raw path was)')
  t.same(recordedBoundary({clean: true, changed: ['params.json']}, redact), {clean: true, changed: ['params.json']}, 'a small clean one as it is')
})
