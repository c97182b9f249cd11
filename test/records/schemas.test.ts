import t from 'tap'
import {execFile} from 'node:child_process'
import path from 'node:path'
import {KIND_NAMES, KINDS, checkBody, checkRecord, prepare, seal} from '../../src/records/index.js'
import {sampleDraft} from '../helpers/records.js'
import {ROOT} from '../helpers/cli.js'
import {node} from '../helpers/repo.js'

const run = (script: string) => new Promise<{code: number; err: string}>(resolve => {
  execFile(...node([path.join(ROOT, 'scripts', script), '--check']), {cwd: ROOT}, (e, _o, err) => resolve({code: e ? 1 : 0, err}))
})

t.test('the TypeScript types are generated from the schemas and have not drifted', async t => {
  const r = await run('gen-types.mjs')
  t.equal(r.code, 0, r.err)
})

t.test('the compiled validators are generated from the schemas and have not drifted', async t => {
  const r = await run('gen-validators.mjs')
  t.equal(r.code, 0, r.err)
})

t.test('every kind has a schema file, a prefix and a folder', async t => {
  const prefixes = new Set(KIND_NAMES.map(k => KINDS[k].prefix))
  t.equal(prefixes.size, KIND_NAMES.length, 'prefixes are unique')
  for (const k of KIND_NAMES) t.same(checkBody(k, sampleDraft(k).body), [], `${k} sample is valid`)
})

t.test('unknown top-level fields and unknown enum values are rejected', async t => {
  t.match(checkBody('note', {text: 'x', colour: 'red'}), [{path: 'body.colour', message: 'is not an allowed field'}])
  const v = sampleDraft('verification').body as unknown as Record<string, unknown>
  t.match(checkBody('verification', {...v, outcome: 'great'}), [{path: 'body.outcome', message: /must be one of: positive, negative, invalid/}])
  t.match(checkBody('trace', {...(sampleDraft('trace').body as object), split: 'test'}), [{path: 'body.split'}])
  const rec = seal(prepare(sampleDraft('note')), {lane: 'a', lamport: 1, createdAt: '2026-01-01T00:00:00.000Z'})
  t.same(checkRecord(rec), [])
  t.match(checkRecord({...rec, extra: true}), [{path: 'extra'}])
  t.match(checkRecord({...rec, kind: 'memo'}), [{path: 'kind'}])
  t.match(checkRecord({...rec, created_at: '2026-01-01 00:00'}), [{path: 'created_at'}])
  t.match(checkRecord({...rec, schema: 'note@2'}), [{path: 'schema'}])
})

t.test('writers reject what readers would reject', async t => {
  t.throws(() => prepare({kind: 'claim', body: {hypothesis: 'hy-1', holder: 'a', ttl_seconds: 0, expires_at: 'soon'} as never}), {code: 'E_SCHEMA'})
})
