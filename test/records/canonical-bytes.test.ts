import t from 'tap'
import {isAscii} from 'node:buffer'
import {canonicalJson} from '../../src/records/index.js'
import {canonicalBytes} from '../../src/records/canonical-bytes.js'

/** canonicalBytes, with the full comparison it asks for when it cannot tell */
function verdict(text: string): boolean {
  const b = Buffer.from(text, 'utf8')
  return canonicalBytes(b, b.length, isAscii(b)) ?? canonicalJson(JSON.parse(text)) === text
}
/** the reference: the text is exactly canonicalJson of what it parses to */
function truth(text: string): boolean {
  try {
    return canonicalJson(JSON.parse(text)) === text
  } catch {
    return false // (1e400: Infinity, which has no canonical form)
  }
}

t.test('canonical bytes pass; every other form of the same value is told apart', async t => {
  const good = [
    '{}',
    '[]',
    '{"a":1,"b":[true,false,null],"c":{"d":"x"}}',
    '{"body":{"text":"a\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f"},"cites":[]}',
    '{"n":[0,-1,1.5,-0.25,1e+21,1e-7,123456789012345,9007199254740991]}',
    '{"10":1,"9":2}', // code-unit order, not the integer order V8 keeps keys in
    '{"A":1,"_":2,"a":3,"é":4}',
    '{"😀":2,"\ue000":1}', // U+E000 after U+1F600 in UTF-16 code units (before it in UTF-8 bytes)
    '{"s":"\u007f\u2028é😀/"}',
    '{"s":"\\ud800"}', // a lone surrogate, escaped as JSON.stringify escapes it
  ]
  // (messages name the case by its index: U+2028 in a TAP line breaks the stream)
  for (const [i, text] of good.entries()) t.equal(verdict(text), truth(text), `good[${i}]`)
  t.equal(truth('{"\ue000":1,"😀":2}'), false, '(U+E000 sorts after the surrogates of U+1F600)')
  t.equal(verdict('{"😀":2,"\ue000":1}'), true)
  const bad = [
    '{"text":"evil","text":"good"}', // a key twice: parsers disagree on which wins
    '{"b":1,"a":2}',
    '{"a":{"y":1,"x":2}}',
    '[{"a":1,"a":1}]',
    '{"a": 1}',
    ' {"a":1}',
    '{"a":1}\n',
    '{"a":[1, 2]}',
    '{"a":"\\u0061"}',
    '{"a":"\\/"}',
    '{"a":"\\u000a"}',
    '{"a":"\\u001F"}',
    '{"a":"\\ud83d\\ude00"}', // a pair JSON.stringify writes as the character itself
    '{"a":"\\uD800"}',
    '{"a":1.0}',
    '{"a":1E5}',
    '{"a":1e5}',
    '{"a":-0}',
    '{"a":0.10}',
    '{"a":12345678901234567890}', // parsers that keep every digit read another number
    '{"a":1e400}',
    '{"ab":1,"a":2}',
    '{"a\\u0062":1,"aa":2}',
  ]
  for (const text of bad) {
    t.equal(truth(text), false, `(reference: ${JSON.stringify(text)} is not canonical)`)
    t.equal(verdict(text), false, JSON.stringify(text))
  }
})

t.test('random values agree with canonicalJson, canonical and perturbed', async t => {
  let seed = 7
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n)
  const pick = <T>(xs: readonly T[]) => xs[rnd(xs.length)]!
  const KEYS = ['a', 'b', 'ab', 'B', '_x', '10', '9', 'é', 'ü', '😀', '\ue000', 'key with space', 'q"q', 'nl\n']
  const STRINGS = ['', 'plain', 'quote " and \\ backslash', 'tab\tnl\n', '\u0000\u0007\u001b', 'é😀', '\u2028', '/slash/']
  const NUMBERS = [0, 1, -1, 2.5, 1e21, 1e-7, 123456789, -0.001, 2 ** 53 - 1]
  const value = (depth: number): unknown => {
    const k = rnd(depth > 3 ? 3 : 5)
    if (k === 0) return pick(STRINGS)
    if (k === 1) return pick(NUMBERS)
    if (k === 2) return pick([true, false, null])
    if (k === 3) return Array.from({length: rnd(4)}, () => value(depth + 1))
    const o: Record<string, unknown> = {}
    for (let i = rnd(5); i > 0; i--) o[pick(KEYS)] = value(depth + 1)
    return o
  }
  const perturb = (s: string): string => {
    const at = rnd(s.length + 1)
    switch (rnd(5)) {
      case 0:
        return `${s.slice(0, at)} ${s.slice(at)}`
      case 1:
        return s.replace(/"(a|b)":/, '"$1":0,"$1":')
      case 2:
        return s.replace(/:(\d+)([,}\]])/, ':$1.0$2')
      case 3:
        return s.replace(/é/, '\\u00e9')
      default:
        return s.replace(/"a":(.*?),"b":/, '"b":$1,"a":')
    }
  }
  let checked = 0
  for (let i = 0; i < 3000; i++) {
    const text = canonicalJson({body: value(0)})
    t.equal(verdict(text), true, JSON.stringify(text))
    const other = perturb(text)
    let parses = true
    try {
      JSON.parse(other)
    } catch {
      parses = false
    }
    if (!parses) continue
    checked++
    if (verdict(other) !== truth(other)) t.fail(`disagrees on ${other}`)
  }
  t.ok(checked > 2000, `${checked} perturbed texts compared`)
})
