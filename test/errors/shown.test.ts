import t from 'tap'
import {clipped} from '../../src/errors/shown.js'

t.test('a word up to the limit is shown whole', async t => {
  t.equal(clipped('a'.repeat(160)), 'a'.repeat(160))
  t.equal(clipped(''), '')
})

t.test('a longer word keeps its start and its end, and says how long it was', async t => {
  const path = `/tmp/${'d'.repeat(300)}/SKILL.md`
  t.equal(clipped(path), `${path.slice(0, 107)}…${path.slice(-53)} (${path.length} characters)`)
  t.match(clipped(path), /\/SKILL\.md \(\d+ characters\)$/, "a path's file name stays")
  t.equal(clipped('x'.repeat(300), 80), `${'x'.repeat(54)}…${'x'.repeat(26)} (300 characters)`)
})

t.test('a cut never splits a surrogate pair', async t => {
  for (const pad of [0, 1]) {
    const word = `${'a'.repeat(pad)}${'😀'.repeat(200)}`
    const shown = clipped(word)
    t.notOk(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(shown), `offset ${pad}: no lone surrogate in ${JSON.stringify(shown.slice(100, 112))}`)
    t.ok(shown.endsWith(`(${word.length} characters)`))
  }
})
