import t, {type Test} from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {LedgerCache, type CacheAdd, type CachedEntry} from '../../src/store/git/cache.js'
import {firstOfEachId, slotKey} from '../../src/store/first-ids.js'
import type {LedgerEntry} from '../../src/store/index.js'

/**
 * The cache index is read in slices (cache.ts): lines of any length, a slice boundary inside
 * a line, a line longer than a slice, a cut last line and an extra line all read as the
 * index says or are refused; and the ledger's deduplication without a map of every id.
 */

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-cache-index-'))
  t.teardown(() => fs.rmSync(dir, {recursive: true, force: true}))
  return dir
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')

function add(i: number, cites: number): CacheAdd {
  const bytes = Buffer.from(`{"body":{"n":${i}},"cites":[],"created_at":"x"}\n`)
  return {
    id: `nt-${hex(i, 24)}`,
    kind: 'note',
    digest: `sha256:${hex(i, 64)}`,
    lamport: i + 1,
    commit: hex(i, 40),
    cites: Array.from({length: cites}, (_, k) => `tr-${hex(k, 24)}`),
    facts: i % 3 ? JSON.stringify({n: i}) : undefined,
    bytes,
    pre: 10,
    created: '2026-01-01T00:00:00.000Z',
  }
}

const strip = (e: CachedEntry) => ({id: e.id, kind: e.kind, digest: e.digest, lamport: e.lamport, commit: e.commit, cites: [...e.cites], facts: e.facts, off: e.off, len: e.len, pre: e.pre, created: e.created, lane: e.lane, ref: e.ref, private: e.private})

t.test('an index of thousands of lines, with lines longer than a read slice, reads back as written', async t => {
  const cache = new LedgerCache(tmp(t))
  const ref = 'refs/research/lanes/a'
  const w = cache.writer(ref, undefined, 'a', false)
  // ~1.5 MB of lines of ~200 bytes, one of ~700 KB (26,000 cites) and one of ~1.1 MB (40,000)
  // among them: read slices (64 KiB) end inside lines, and two lines are longer than a slice;
  // the writer's slabs (1 MiB) end between lines, and one line is longer than a slab
  const adds = Array.from({length: 6000}, (_, i) => add(i, i === 10 ? 26_000 : i === 4000 ? 40_000 : i % 5))
  const written = w.addData(adds)
  const st = w.finish(written, 'f'.repeat(40), [])
  t.ok(st.idxBytes > 2 * 1024 * 1024, `the index is ${st.idxBytes} bytes`)
  const read = cache.readEntries(ref, st, 'a', false)
  t.equal(read.length, 6000)
  t.same(read.map(strip), written.map(strip), 'every field of every line as written')
  cache.close()
})

t.test('a cut, a missing newline, an extra line, an edited line: refused', async t => {
  const dir = tmp(t)
  const cache = new LedgerCache(dir)
  const ref = 'refs/research/lanes/a'
  const w = cache.writer(ref, undefined, 'a', false)
  const written = w.addData(Array.from({length: 3000}, (_, i) => add(i, i === 2999 ? 30_000 : 1)))
  const st = w.finish(written, 'f'.repeat(40), [])
  const idx = fs.readdirSync(cache.dir).find(f => f.endsWith('.idx'))!
  const file = path.join(cache.dir, idx)
  const good = fs.readFileSync(file)
  const cases: [string, Buffer, Partial<typeof st>, RegExp][] = [
    ['the last newline cut (state and CRC made to match)', good.subarray(0, good.length - 1), {}, /truncated/],
    ['the file shorter than its state', good.subarray(0, good.length - 100), {}, /shorter|truncated|CRC/],
    ['one line fewer than the state counts', good, {count: st.count + 1}, /lines, not the/],
    ['one line more than the state counts', good, {count: st.count - 1}, /more lines/],
    ['a digit of an offset edited', Buffer.from(good.toString('latin1').replace(/\t(\d+)\t(\d+)\t(\d+)\t2026/, '\t$1\t$2\t$3x\t2026'), 'latin1'), {}, /CRC/],
  ]
  for (const [what, bytes, edit, re] of cases) {
    fs.writeFileSync(file, bytes)
    const zlib = await import('node:zlib')
    const fixed = what.includes('made to match') ? {idxBytes: bytes.length, crc: zlib.crc32(bytes)} : {}
    t.throws(() => cache.readEntries(ref, {...st, ...fixed, ...edit}, 'a', false), re, what)
  }
  fs.writeFileSync(file, good)
  t.equal(cache.readEntries(ref, st, 'a', false).length, 3000, 'the index as written reads')
  cache.close()
})

t.test('firstOfEachId: the first of each id, as a Set would say, whatever the ids and their order', async t => {
  let seed = 7
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  for (const [n, pool] of [[0, 1], [1, 1], [5000, 2000], [20_000, 20_000], [3000, 3]] as const) {
    const ids = Array.from({length: n}, () => `tr-${hex(Math.floor(rand() * pool), 24)}`)
    const seen = new Set<string>()
    const expected = ids.map(id => (seen.has(id) ? 0 : (seen.add(id), 1)))
    t.same([...firstOfEachId(i => ids[i]!, n)], expected, `${n} ids of ${pool}`)
  }
  // strings that share a hash slot (same length, differing anywhere) are told apart
  const ids = ['a', 'b', 'a', '', '', 'é', 'e', 'é', 'x'.repeat(1000), `${'x'.repeat(999)}y`, 'x'.repeat(1000)]
  t.same([...firstOfEachId(i => ids[i]!, ids.length)], [1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0])
  // ids that share eight digits of their digest part (thousands), and id-long strings that
  // are not hex there, are told apart
  const same = Array.from({length: 3000}, (_, i) => `nt-deadbeef${hex(i % 1500, 16)}`)
  const odd = ['nt-DEADBEEF0000000000000000', 'nt-zzzzzzzz0000000000000000', 'nt-DEADBEEF0000000000000000', 'nt-deadbeef0000000000000000']
  const all = [...same, ...odd]
  t.same([...firstOfEachId(i => all[i]!, all.length)], [...same.map((_, i) => (i < 1500 ? 1 : 0)), 1, 1, 0, 0], 'colliding digits and non-hex ids')
})

t.test('firstOfEachId with keys hashed where the ids lie: the same answer; ids whose keys are all one still told apart', async t => {
  const text = Array.from({length: 4000}, (_, i) => `c\ttr-${hex(i % 1300, 24)}\tmore\n`).join('')
  const at = [...text.matchAll(/\ttr-/g)].map(m => m.index + 1)
  const ids = at.map(p => text.slice(p, p + 27))
  const seen = new Set<string>()
  const expected = ids.map(id => (seen.has(id) ? 0 : (seen.add(id), 1)))
  t.same([...firstOfEachId(i => ids[i]!, ids.length, i => slotKey(text, at[i]!, at[i]! + 27))], expected, 'keys from the text: as a Set says')
  t.equal(slotKey(text, at[5]!, at[5]! + 27), slotKey(ids[5]!), 'a key hashed in place is the key of the id')
  t.same([...firstOfEachId(i => ids[i]!, ids.length, () => 7)], expected, 'one key for all: every id compared, still right')
})

t.test('firstOfEachId on 60,000 ids sharing the first eight digits of their digest part, or the last eight: linear, not quadratic', async t => {
  for (const [name, make] of [
    ['the first eight', (n: number) => `nt-deadbeef${hex(n % 30_000, 16)}`],
    ['the last eight', (n: number) => `nt-${hex(n % 30_000, 16)}deadbeef`],
  ] as const) {
    const ids = Array.from({length: 60_000}, (_, n) => make(n))
    const started = performance.now()
    const first = firstOfEachId(i => ids[i]!, ids.length)
    const ms = performance.now() - started
    t.equal(first.reduce((a, b) => a + b, 0), 30_000, `${name}: 30,000 firsts`)
    t.ok(first.subarray(0, 30_000).every(f => f === 1) && first.subarray(30_000).every(f => f === 0), `${name}: each the first time it comes`)
    // (one probe run for all of them: ~1.8 billion comparisons, a minute and more here)
    t.ok(ms < 5000, `${name}: ${ms.toFixed(0)} ms`)
  }
})

t.test('records loaded one at a time, forwards and backwards, come from blocks read around them (one per data file): each as stored, an edited one from history', async t => {
  const {GitRecordStore} = await import('../../src/store/index.js')
  const {makeRepo} = await import('../helpers/repo.js')
  const {sampleDraft} = await import('../helpers/records.js')
  const repo = await makeRepo(t)
  const first = await GitRecordStore.open(repo, {onWarning: () => undefined})
  // two lanes in batches of 25, taking turns: the ledger's order goes from lane to lane, and
  // within a lane from the note file to the trace file at every record
  for (let b = 0; b < 16; b++) await first.appendBatch(Array.from({length: 25}, (_, i) => sampleDraft(i % 2 ? 'note' : 'trace', b * 25 + i)), {lane: b % 2 ? 'b' : 'a'})
  await first.ledger()
  await first.close()
  const expected = new Map<string, string>()
  {
    const s = await GitRecordStore.open(repo, {onWarning: () => undefined})
    const l = await s.ledger()
    for (const [k, r] of l.records().entries()) expected.set(l.entries[k]!.id, JSON.stringify(r))
    await s.close()
  }
  for (const order of ['forwards', 'backwards', 'shuffled']) {
    const warnings: string[] = []
    const s = await GitRecordStore.open(repo, {onWarning: w => warnings.push(w)})
    const l = await s.ledger()
    // (shuffled: a fixed permutation, every 7th entry of 400 from the 1st)
    const es = order === 'forwards' ? [...l.entries] : order === 'backwards' ? [...l.entries].reverse() : l.entries.map((_, i) => l.entries[(i * 7) % l.entries.length]!)
    // (fs.readSync counted while the records load: the cache's reads of its data files)
    const readSync = fs.readSync
    let reads = 0
    fs.readSync = ((...a: Parameters<typeof fs.readSync>) => (reads++, readSync(...a))) as typeof fs.readSync
    let wrong: LedgerEntry[]
    try {
      wrong = es.filter(e => JSON.stringify(l.load(e)) !== expected.get(e.id))
    } finally {
      fs.readSync = readSync
    }
    t.equal(wrong.length, 0, `${order}: every record as stored`)
    // 4 data files (2 lanes, 2 kinds) of ~20-60 KiB: a few blocks each, not a read per record
    // (with one block for all files, the turns between files made it ~400)
    if (order !== 'shuffled') t.ok(reads > 0 && reads <= 16, `${order}: ${reads} reads for ${es.length} records`)
    t.same(warnings, [], `${order}: no cache mismatch`)
    await s.close()
  }
  // one note's bytes edited in its data file: loaded one at a time, it comes from history
  const dir = path.join(repo, '.git/exp/cache-v4')
  const file = path.join(dir, fs.readdirSync(dir).find(f => f.endsWith('.note.dat'))!)
  const bytes = fs.readFileSync(file)
  const at = bytes.indexOf('"body":{', 20_000) + 9
  bytes[at] ^= 0x01
  fs.writeFileSync(file, bytes)
  const warnings: string[] = []
  const s = await GitRecordStore.open(repo, {onWarning: w => warnings.push(w)})
  const l = await s.ledger()
  const wrong = l.entries.filter(e => JSON.stringify(l.load(e)) !== expected.get(e.id))
  t.equal(wrong.length, 0, 'every record as stored, the edited one read from history')
  t.match(warnings.join('\n'), /does not match/, 'with a warning')
  await s.close()
})
