import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {Ledger, type LedgerEntry} from '../../src/store/ledger.js'
import {GitRecordStore} from '../../src/store/index.js'
import type {Kind} from '../../src/records/index.js'
import {makeRepo} from '../helpers/repo.js'

/** deterministic pseudo-random entries over a few lanes, with some duplicate ids */
function entries(n: number, seed = 7): LedgerEntry[] {
  let x = seed
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const lanes = ['a', 'b', 'c']
  const out: LedgerEntry[] = []
  for (let i = 0; i < n; i++) {
    const lane = lanes[Math.floor(rnd() * lanes.length)]!
    // every 50th entry repeats an earlier id (the same record appended on two lanes)
    const id = i % 50 === 49 ? out[Math.floor(rnd() * out.length)]!.id : `nt-${i.toString(16).padStart(24, '0')}`
    out.push({id, kind: 'note', digest: `sha256:${i}`, lane, ref: `refs/research/lanes/${lane}`, private: false, lamport: Math.floor(rnd() * n), commit: String(i), cites: []})
  }
  return out
}

const view = (l: Ledger) => ({entries: l.entries.map(e => `${e.lamport}/${e.lane}/${e.id}/${e.digest}`), duplicates: l.duplicates.map(e => `${e.id}/${e.digest}`).sort()})
const noLoad = (): never => {
  throw new Error('no bodies here')
}

t.test('a ledger extended with new entries equals one built from all of them', async t => {
  const all = entries(30_000)
  // the first 10,000 entries, then the rest in steps (the overlay of ids grows past its limit and is flattened)
  let ledger = new Ledger(all.slice(0, 10_000), noLoad)
  const used = all.slice(0, 10_000)
  let extended = 0
  for (let at = 10_000; at < all.length; ) {
    const step = Math.min(all.length - at, at < 20_000 ? 1000 : 3000)
    // ids the ledger has already are refused by extend (next test): offer only new ones here
    const ids = new Set<string>()
    const add = all.slice(at, at + step).filter(e => !ledger.has(e.id) && !ids.has(e.id) && !!ids.add(e.id))
    const next = Ledger.extend(ledger, add, [])
    t.ok(next, 'new ids extend')
    ledger = next!
    used.push(...add)
    extended++
    at += step
  }
  t.ok(extended > 10)
  const reference = new Ledger([...used], noLoad)
  t.ok(reference.duplicates.length > 0, 'the first 10,000 hold duplicates')
  t.same(view(ledger), view(reference), 'same order, same duplicates')
  for (const e of reference.entries) if (ledger.get(e.id) !== e) t.fail(`get(${e.id}) differs`)
  t.notOk(ledger.has('nt-missing'))
  t.equal(ledger.size, reference.size)
})

t.test('extending with an id the ledger already has is refused (the whole ledger is built again)', async t => {
  const all = entries(200)
  const ledger = new Ledger(all.slice(0, 100), noLoad)
  const again = {...all[5]!, lane: 'z', ref: 'refs/research/lanes/z', lamport: 0}
  t.equal(Ledger.extend(ledger, [again], []), undefined, 'a known id')
  const fresh = {...all[150]!, id: 'nt-new'}
  t.equal(Ledger.extend(ledger, [fresh, {...fresh, lane: 'y'}], []), undefined, 'the same new id twice')
  t.ok(Ledger.extend(ledger, [fresh], []), 'a new id')
  const same = Ledger.extend(ledger, [], [])!
  t.same(view(same), view(ledger), 'nothing new: the same ledger')
})

t.test('the store: kinds in their own data files, many bodies in few reads, incremental ledgers equal fresh ones', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const kinds: Kind[] = ['note', 'claim', 'note', 'release']
  const draft = (i: number) => {
    const kind = kinds[i % kinds.length]!
    if (kind === 'note') return {kind, body: {text: `note ${i} — ünïcödé ✓ ${'x'.repeat(i % 7)}`}}
    const hypothesis = `hy-${i.toString(16).padStart(24, '0')}`
    if (kind === 'claim') return {kind, body: {hypothesis, holder: 'a', ttl_seconds: 60, expires_at: '2026-01-01T00:01:00.000Z'}}
    return {kind, body: {hypothesis, holder: 'a', reason: 'done'}}
  }
  await s.appendBatch(Array.from({length: 40}, (_, i) => draft(i)), {lane: 'a'})
  const first = await s.ledger()
  t.equal(first.size, 40)
  await s.appendBatch(Array.from({length: 10}, (_, i) => draft(100 + i)), {lane: 'a'})
  await s.appendBatch(Array.from({length: 5}, (_, i) => draft(200 + i)), {lane: 'b'})
  const second = await s.ledger()
  t.equal(second.size, 55)
  t.equal(first.size, 40, 'an older ledger does not change')
  t.notOk(first.has(second.entries[second.size - 1]!.id))
  const files = fs.readdirSync(path.join(repo, '.git/exp/cache-v4'))
  t.ok(files.some(f => f.endsWith('.note.dat')) && files.some(f => f.endsWith('.claim.dat')), 'one data file per kind')
  const fresh = await GitRecordStore.open(repo)
  const cold = await fresh.ledger()
  t.same(view(second), view(cold))
  const notes = second.records({kinds: ['note']})
  t.same(notes, cold.select({kinds: ['note']}).map(e => cold.load(e)), 'batched loads give what single loads give')
  t.match(notes[0]!.body, {text: /ünïcödé ✓/})
  t.same(second.records(), cold.records())
  const nocache = await GitRecordStore.open(repo, {cache: false})
  t.same((await nocache.ledger()).records(), cold.records())
  await Promise.all([s.close(), fresh.close(), nocache.close()])
})

t.test('withPrefetched: loads inside take bodies read in one batch, once each; nothing is held after', async t => {
  const es = entries(40, 3).filter((e, i, all) => all.findIndex(x => x.id === e.id) === i)
  const body = (e: LedgerEntry) => Buffer.from(`{"body":{"n":"${e.id}"},"id":"${e.id}"}\n`)
  let single = 0
  let batched: number[] = []
  const l = new Ledger(
    es.map(e => ({...e})),
    e => (single++, JSON.parse(body(e).toString())),
    [],
    undefined,
    xs => ((batched = [...batched, xs.length]), xs.map(body)),
  )
  const [a, b, c] = l.entries as LedgerEntry[]
  const got = l.withPrefetched([a!, b!], () => {
    const first = l.load(a!)
    const again = l.load(a!.id)
    const other = l.load(c!)
    return {first, again, other}
  })
  t.same(batched, [2], 'the two read in one batch')
  t.same(got.first, {body: {n: a!.id}, id: a!.id}, 'the body of its entry')
  t.equal(single, 2, 'a second load of the same entry, and an entry not read ahead, are read alone')
  t.same(got.again, got.first, 'the same record')
  t.not(got.again, got.first, 'each load gets a body of its own')
  single = 0
  l.load(b!)
  t.equal(single, 1, 'what fn did not load is dropped when it returns')
  t.throws(() => l.withPrefetched([a!, b!], () => {
    throw new Error('in fn')
  }), /in fn/)
  single = 0
  l.load(a!)
  t.equal(single, 1, 'dropped when fn throws too')
  // nested: the inner read ahead ends with its fn, the outer one's bodies stay for it
  single = 0
  l.withPrefetched([a!, b!], () => {
    l.withPrefetched([c!, l.entries[3]!], () => l.load(c!))
    l.load(b!)
    l.load(l.entries[3]!)
  })
  t.equal(single, 1, 'only the entry the inner pass read ahead and did not load is read again after it')
})

t.test('the same record on two lanes, read from history and then from the cache in new stores: listed once, its copy a duplicate, both times', async t => {
  const {sampleDraft} = await import('../helpers/records.js')
  const {execFileSync} = await import('node:child_process')
  const repo = await makeRepo(t)
  const other = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  await s.appendBatch([sampleDraft('note', 1), sampleDraft('note', 2)], {lane: 'a'})
  await s.close()
  // (a store refuses to append a record it has: the copy comes from a clone that did not have it)
  const o = await GitRecordStore.open(other)
  await o.appendBatch([sampleDraft('note', 3), sampleDraft('note', 1)], {lane: 'b'})
  await o.close()
  execFileSync('git', ['fetch', '-q', other, 'refs/research/lanes/b:refs/research/lanes/b'], {cwd: repo})
  const reads = []
  const forgetB = () => {
    // lane b's cache forgotten: b is read from history, a from the cache (entries of both kinds in one ledger)
    const f = path.join(repo, '.git', 'exp', 'cache-v4', 'state.json')
    const st = JSON.parse(fs.readFileSync(f, 'utf8')) as {lanes: Record<string, unknown>}
    delete st.lanes['refs/research/lanes/b']
    fs.writeFileSync(f, JSON.stringify(st))
  }
  for (const round of ['from history', 'from the cache', 'a from the cache, b from history']) {
    if (round.startsWith('a from')) forgetB()
    const store = await GitRecordStore.open(repo)
    const l = await store.ledger()
    reads.push(view(l))
    t.equal(l.entries.length, 3, `${round}: three records`)
    t.equal(l.duplicates.length, 1, `${round}: one copy`)
    t.equal(new Set(l.entries.map(e => e.id)).size, 3, `${round}: each id once`)
    t.equal(l.get(l.duplicates[0]!.id)?.lane, 'a', `${round}: the first in ledger order wins`)
    await store.close()
  }
  t.same(reads[1], reads[0], 'the cache gives the ledger history gives')
  t.same(reads[2], reads[0], 'and so do both together')
  t.ok(fs.existsSync(path.join(repo, '.git', 'exp', 'cache-v4', 'state.json')), 'the second read was from the cache')
})
