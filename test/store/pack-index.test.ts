import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {createHash} from 'node:crypto'
import {findInPackIndex, writePackIndex} from '../../src/store/git/pack-index.js'

// the pack index (version 2) is written and read by one module (pack-index.ts): what the
// writer makes, the reader finds, 64-bit offsets included; anything else is not found

const oid = (n: number) => createHash('sha1').update(String(n)).digest('hex')

t.test('every id written is found at its offset, small and 64-bit ones alike; others are not', async t => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-pack-index-'))
  t.teardown(() => fs.rmSync(dir, {recursive: true, force: true}))
  // offsets past 2 GiB and 4 GiB take the table of 64-bit offsets
  const entries = Array.from({length: 700}, (_, i) => ({oid: oid(i), crc: i * 7919, offset: i % 50 === 0 ? 2 ** 31 + i * 2 ** 26 : 12 + i * 301}))
  const file = path.join(dir, 'p.idx')
  const idx = writePackIndex([...entries].reverse(), Buffer.alloc(20, 7))
  fs.writeFileSync(file, idx)
  t.equal(idx.subarray(-20).toString('hex'), createHash('sha1').update(idx.subarray(0, -20)).digest('hex'), 'the trailing SHA-1 is the index\'s own')
  for (const e of entries) t.equal(findInPackIndex(file, Buffer.from(e.oid, 'hex')), e.offset)
  t.equal(findInPackIndex(file, Buffer.from(oid(9999), 'hex')), undefined, 'an id not listed')
  t.equal(findInPackIndex(file, Buffer.alloc(20, 0)), undefined, 'below every id')
  t.equal(findInPackIndex(file, Buffer.alloc(20, 0xff)), undefined, 'above every id')
  const v1 = Buffer.from(idx)
  v1.writeUInt32BE(1, 4)
  fs.writeFileSync(file, v1)
  t.equal(findInPackIndex(file, Buffer.from(entries[3]!.oid, 'hex')), undefined, 'an index of another version')
  fs.writeFileSync(file, idx.subarray(0, 600))
  t.equal(findInPackIndex(file, Buffer.from(entries[3]!.oid, 'hex')), undefined, 'a cut index')
  t.throws(() => findInPackIndex(path.join(dir, 'none.idx'), Buffer.from(entries[3]!.oid, 'hex')), {code: 'ENOENT'}, 'a missing file throws (the caller falls back to cat-file)')
})
