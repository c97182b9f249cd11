import t from 'tap'
import {canonicalJson, digestOf, recordDigest, recordId, identify, recordPath, parseRecordPath} from '../../src/records/index.js'

t.test('canonical JSON sorts keys, drops undefined members and normalizes -0', async t => {
  t.equal(canonicalJson({b: 1, a: {d: [1, {z: 1, y: undefined}], c: -0}}), '{"a":{"c":0,"d":[1,{"z":1}]},"b":1}')
  t.equal(canonicalJson({x: new Date('2026-01-02T03:04:05Z')}), '{"x":"2026-01-02T03:04:05.000Z"}')
})

t.test('canonical JSON rejects values without a stable form', async t => {
  t.throws(() => canonicalJson({x: NaN}), {code: 'E_INVALID_INPUT'})
  t.throws(() => canonicalJson([1, undefined]), {code: 'E_INVALID_INPUT'})
  t.throws(() => canonicalJson({f: () => 1}), {code: 'E_INVALID_INPUT'})
  // the error names where the value is (the first refused one in key order)
  t.throws(() => canonicalJson({b: {list: [1, 2, Infinity]}, a: {ok: true}}), {message: '$.b.list[2]: number Infinity is not finite'})
  t.throws(() => canonicalJson({z: [undefined], a: [{n: 1n}]}), {message: '$.a[0].n: bigint cannot be stored in a record'})
  t.throws(() => canonicalJson({x: [0, undefined]}), {message: '$.x[1]: undefined is not allowed in arrays'})
})

t.test('the digest ignores lane, lamport, time and volatile fields but not cites order', async t => {
  const base = {kind: 'note' as const, body: {text: 'x'}}
  t.equal(recordDigest({...base, cites: ['b', 'a']}), recordDigest({...base, cites: ['a', 'b', 'a']}), 'cites are a set')
  t.not(recordDigest(base), recordDigest({...base, cites: ['a']}))
  t.not(recordDigest(base), recordDigest({...base, key: 'k'}))
  t.equal(digestOf({a: 1, b: 2}), digestOf({b: 2, a: 1}))
})

t.test('ids carry the kind prefix and derive from content or key', async t => {
  const {id, digest} = identify({kind: 'knowledge', body: {} as never})
  t.match(id, /^kn-[0-9a-f]{24}$/)
  t.equal(id.slice(3), digest.slice(7, 31))
  t.equal(recordId('trace', digest, 'mf-1/s1/0'), recordId('trace', 'sha256:' + '0'.repeat(64), 'mf-1/s1/0'), 'a keyed id ignores the content')
})

t.test('record paths are sharded by the id and parse back', async t => {
  const p = recordPath('trace', 'tr-3f9a00000000000000000000')
  t.equal(p, 'experience/traces/3f/tr-3f9a00000000000000000000.json')
  t.same(parseRecordPath(p), {dir: 'experience/traces', shard: '3f', id: 'tr-3f9a00000000000000000000'})
  t.equal(parseRecordPath('../../etc/passwd'), undefined)
})
