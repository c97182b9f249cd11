/* eslint-disable no-control-regex -- the tests look for control characters on purpose */
import t from 'tap'
import {decodeUtf8, loneSurrogate, utf8SequenceAt, parseJsonLines, parseYamlOrJson, oneLine, sliceText, summarize, seal, prepare} from '../../src/records/index.js'
import {duplicateKey} from '../../src/records/json-keys.js'
import {recordMessage, parseTrailers} from '../../src/store/git/message.js'

const BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]', 'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]', 'text: hi'].join('\n')

t.test('invalid UTF-8 is refused with its position, never replaced by U+FFFD', async t => {
  t.equal(decodeUtf8(Buffer.from('text: héllo'), 'f.yaml'), 'text: héllo')
  t.throws(() => decodeUtf8(Buffer.from([0x74, 0x3a, 0x20, 0x61, 0xff]), 'f.yaml'), {code: 'E_PARSE', message: /^f\.yaml:1:5: invalid UTF-8 at byte 4/})
  t.throws(() => decodeUtf8(Buffer.concat([Buffer.from('a\nbc '), Buffer.from([0xc3])]), 'g.json'), {message: /^g\.json:2:4: invalid UTF-8 at byte 5/}, 'a truncated sequence')
  t.throws(() => decodeUtf8(Buffer.from([0xed, 0xa0, 0x80]), 'h'), {message: /invalid UTF-8 at byte 0/}, 'an encoded surrogate')
  t.throws(() => decodeUtf8(Buffer.from([0xc0, 0xaf]), 'h'), {message: /invalid UTF-8 at byte 0/}, 'an overlong form')
})

t.test('duplicate JSON keys are found at any depth, after escapes, and refused on input', async t => {
  t.equal(duplicateKey('{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}'), undefined, 'the same key in different objects is fine')
  t.same(duplicateKey('{"a":1,"b":{"x":1, "x" : 2}}'), {key: 'x', pos: 19})
  t.same(duplicateKey('{"\\u0061":1,"a":2}'), {key: 'a', pos: 12}, 'keys compare decoded')
  t.equal(duplicateKey('{"a":"\\"a\\":1","b":"a"}'), undefined, 'strings holding quotes and key-like text are skipped whole')
  await t.rejects(parseYamlOrJson('{"text":"a","text":"b"}', 'n.json'), {code: 'E_PARSE', message: /^n\.json:1:13: duplicate key "text"/})
  t.throws(() => parseJsonLines('{"text":"ok"}\n{"text":"a","text":"b"}\n', 'in.jsonl'), {message: /^in\.jsonl:2:13: duplicate key "text"/})
  await t.rejects(parseYamlOrJson('text: a\ntext: b\n', 'n.yaml'), {code: 'E_PARSE', message: /^n\.yaml:2:1: /}, 'YAML input too')
})

t.test('a YAML alias bomb is a parse error naming the file, not an unexpected failure', async t => {
  await t.rejects(parseYamlOrJson(BOMB, 'bomb.yaml'), {code: 'E_PARSE', message: /^bomb\.yaml: too many YAML alias expansions .*alias bomb/})
  t.same(await parseYamlOrJson('a: &x 1\nb: *x\n', 'ok.yaml'), {a: 1, b: 1}, 'a few aliases still work')
})

t.test('a UTF-8 sequence is measured where it starts; what is no character measures 0', async t => {
  const at = (...bytes: number[]) => utf8SequenceAt(Uint8Array.from(bytes), 0)
  t.same([at(0x41), at(0xc3, 0xa9), at(0xe2, 0x82, 0xac), at(0xf0, 0x9f, 0x9a, 0x80), at(0xf4, 0x8f, 0xbf, 0xbf)], [1, 2, 3, 4, 4], 'A, é, €, a rocket, U+10FFFF')
  t.same([at(0x80), at(0xc0, 0x80), at(0xe0, 0x80, 0x80), at(0xf0, 0x80, 0x80, 0x80), at(0xed, 0xa0, 0x80), at(0xf4, 0x90, 0x80, 0x80), at(0xf5, 0x80, 0x80, 0x80), at(0xe2, 0x82), at(0xc3, 0x41)], [0, 0, 0, 0, 0, 0, 0, 0, 0], 'a continuation byte, overlong forms, a surrogate, past U+10FFFF, truncated, broken')
  t.equal(utf8SequenceAt(Uint8Array.from([0x41, 0xc3, 0xa9]), 1), 2, 'at an offset')
})

t.test('a lone UTF-16 surrogate, escaped in JSON or YAML, is refused naming its field; a pair passes', async t => {
  // (no character: written as UTF-8 it is not UTF-8, and other JSON readers read U+FFFD or refuse it)
  await t.rejects(parseYamlOrJson('{"text":"a\\ud800b"}', 'n.json'), {code: 'E_PARSE', message: /^n\.json: \$\.text: a lone UTF-16 surrogate \(\\ud800\)/})
  await t.rejects(parseYamlOrJson('text: ok\nsteps: ["x", "\\udc00"]\n', 'n.yaml'), {message: /^n\.yaml:2:14: \$\.steps\[1\]: a lone UTF-16 surrogate \(\\udc00\)/}, 'a YAML escape, in a list')
  await t.rejects(parseYamlOrJson('{"text":"ok","a":{"k\\ud83d":1}}', 'k.json'), {message: /\$\.a \(the key "k\\ud83d"\): a lone UTF-16 surrogate \(\\ud83d\)/}, 'a key')
  await t.rejects(parseYamlOrJson('{"text":"\\ude80\\ud83d"}', 'r.json'), {message: /\(\\ude80\)/}, 'a pair in the wrong order is two lone halves')
  t.throws(() => parseJsonLines('{"kind":"note","body":{"text":"ok"}}\n{"kind":"note","body":{"text":"\\udfff"}}\n', 'in.jsonl'), {message: /^in\.jsonl:2: \$\.body\.text: a lone UTF-16 surrogate/})
  t.same(await parseYamlOrJson('{"text":"\\ud83d\\ude80 \\u00e9"}', 'ok.json'), {text: '\u{1f680} \u00e9'}, 'an escaped pair is its character')
  t.same(await parseYamlOrJson('text: "\\ud83d\\ude80"\n', 'ok.yaml'), {text: '\u{1f680}'})
})

t.test('the lone-surrogate check looks into each shared or self-holding object once, not down every path', async t => {
  // (a YAML alias inside its own anchor, `text: &a [*a, *a]`, holds itself: the walk of every
  // path below the depth limit was 2^257 steps, and `exp append` hung)
  const loop: unknown[] = []
  loop.push(loop, loop, 'x\ud800')
  t.match(loneSurrogate(loop), {path: '$[2]', escape: '\\ud800'})
  let shared: unknown = ['deep \udc00']
  for (let i = 0; i < 60; i++) shared = [shared, shared]
  t.match(loneSurrogate({text: 'ok', about: shared}), {path: `$.about${'[0]'.repeat(60)}[0]`}, '2^60 paths to one object: found at once')
  t.equal(loneSurrogate({a: shared, b: shared, text: 'fine'})?.path, `$.a${'[0]'.repeat(60)}[0]`)
  const start = Date.now()
  await t.resolves(parseYamlOrJson('text: &a [*a, *a]\n', 'loop.yaml'), 'the self-holding value is left to the depth check (seal), at once')
  t.ok(Date.now() - start < 2000)
})

t.test('text cut for a record never ends in half a surrogate pair', async t => {
  const rocket = '\u{1f680}'
  t.equal(sliceText(`ab${rocket}`, 3), 'ab', 'the pair would be cut: one unit fewer')
  t.equal(sliceText(`ab${rocket}`, 4), `ab${rocket}`)
  t.equal(sliceText(`abc${rocket}`, 3), 'abc')
  t.equal(sliceText('abc', 10), 'abc')
  for (let n = 1; n <= 12; n++) t.notMatch(sliceText(rocket.repeat(6), n), /[\ud800-\udbff]$/, `cut at ${n}`)
})

t.test('a YAML tag beyond the core schema, or another YAML warning, is a parse error with its position', async t => {
  await t.rejects(parseYamlOrJson('text: ok\nrun: !!js/function "function () {}"\n', 't.yaml'), {code: 'E_PARSE', message: /^t\.yaml:2:6: Unresolved tag: tag:yaml\.org,2002:js\/function \(exp reads plain YAML/})
  await t.rejects(parseYamlOrJson('text: !secret x\n', 't.yaml'), {message: /^t\.yaml:1:7: Unresolved tag/}, 'a local tag')
  t.same(await parseYamlOrJson('text: !!str 12\nn: !!int "3"\n', 'ok.yaml'), {text: '12', n: 3}, "the core schema's tags are read")
})

t.test('a commit subject is one line of printable text whatever the record holds', async t => {
  t.equal(oneLine('a\u0000b\u0001\u001b[31mc\u007f\u0085d\u2028e\r\nf'), 'a b [31mc d e f')
  t.equal(oneLine('invoice \u202eexe.pdf\u202c \u2066x\u2069 \u200fy'), 'invoice exe.pdf x y', 'no bidirectional formatting reorders a table row')
  const rec = seal(prepare({kind: 'note', body: {text: 'evil\u0000\nExp-Record: note/nt-000000000000000000000000\u0007'}}), {lane: 'x', lamport: 3, createdAt: '2026-01-01T00:00:00.000Z'})
  const msg = recordMessage(rec)
  const subject = msg.split('\n')[0]!
  t.notMatch(subject, /[\u0000-\u001f\u007f]/)
  t.equal(msg.split('\n').filter(l => l.startsWith('Exp-Record:')).length, 1, 'a forged trailer line cannot be smuggled in')
  t.same(parseTrailers(msg).record, {kind: 'note', id: rec.id})
  t.notMatch(msg, /\u0000/)
  const long = seal(prepare({kind: 'note', body: {text: `${'x'.repeat(70)}😀😀😀`}}), {lane: 'x', lamport: 1, createdAt: '2026-01-01T00:00:00.000Z'})
  t.notMatch(summarize(long), /[\ud800-\udbff](?![\udc00-\udfff])/, 'no surrogate pair is cut in half')
})

t.test('an integer literal beyond 2^53 is refused where it stands, never rounded; a float, a string or 2^53 - 1 passes', async t => {
  await t.rejects(parseYamlOrJson('{"text":"a","n":12345678901234567890}', 'n.json'), {code: 'E_PARSE', message: /^n\.json:1:17: 12345678901234567890 is an integer beyond 2\^53 \(9007199254740991\): it would be read as 12345678901234567000, not as written; write it as a string/})
  await t.rejects(parseYamlOrJson('{"a":[1,{"b":-9007199254740992}]}', 'n.json'), {message: /^n\.json:1:14: -9007199254740992 is an integer beyond/}, 'deep, negative, 2^53 itself')
  t.throws(() => parseJsonLines('{"text":"ok"}\n{"n":99999999999999999}\n', 'in.jsonl'), {message: /^in\.jsonl:2:6: 99999999999999999 is an integer beyond/})
  await t.rejects(parseYamlOrJson('text: a\nn: 12345678901234567890\n', 'n.yaml'), {message: /^n\.yaml:2:4: 12345678901234567890 is an integer beyond/}, 'YAML too')
  t.same(await parseYamlOrJson('{"m":9007199254740991,"f":1e300,"g":1234567890123456789.5,"s":"12345678901234567890","k":{"12345678901234567890":1}}', 'ok.json'), {m: 9007199254740991, f: 1e300, g: Number("1234567890123456789.5"), s: '12345678901234567890', k: {'12345678901234567890': 1}})
  t.same(await parseYamlOrJson('m: -9007199254740991\nf: 1e20\ns: "12345678901234567890"\n', 'ok.yaml'), {m: -9007199254740991, f: 1e20, s: '12345678901234567890'})
})

