import t from 'tap'
import {IdTable} from '../../src/store/git/id-table.js'

const hex = (n: number, len = 24) => n.toString(16).padStart(len, '0').slice(-len)

t.test('finds each id of a large list by its `kind/id` string, and no other', async t => {
  const ids: string[] = []
  const table = new IdTable(ids)
  for (let n = 0; n < 5000; n++) {
    ids.push(`tr-${hex((n * 2654435761) % 2 ** 32, 8)}${hex(n, 16)}`)
    table.add(ids.length - 1)
  }
  let found = 0
  for (let n = 0; n < ids.length; n++) if (table.find(`trace/${ids[n]}`, 6) === n) found++
  t.equal(found, ids.length, 'every id at its own place (the table grew from 1,024 slots)')
  t.equal(table.find('trace/tr-ffffffffffffffffffffffff', 6), undefined, 'an id not in the list')
  t.equal(table.find(`trace/${ids[7]}x`, 6), undefined, 'an id with more after it')
  t.equal(table.find(`trace/${ids[7]!.slice(0, 20)}`, 6), undefined, 'a cut id')
  t.equal(table.find('trace/tr-zzzzzzzz0000000000000000', 6), undefined, 'digits that are not hex')
})

t.test('ids that share eight digits of their digest part are told apart by the whole id', async t => {
  const ids: string[] = []
  const table = new IdTable(ids)
  for (let n = 0; n < 3000; n++) {
    ids.push(`dc-deadbeef${hex(n, 16)}`)
    table.add(ids.length - 1)
  }
  ids.push('nt-deadbeef0000000000000000')
  table.add(ids.length - 1)
  t.equal(table.find(`decision/${ids[1234]}`, 9), 1234)
  t.equal(table.find(`note/nt-deadbeef0000000000000000`, 5), 3000, 'the same digits under another kind')
  t.equal(table.find(`decision/dc-deadbeef${hex(3000, 16)}`, 9), undefined, 'one more of the run that is not there')
})

t.test('50,000 ids that share the first or the last eight digits go in and are found in linear time (the slots are seeded)', async t => {
  for (const [name, make] of [
    ['the first eight', (n: number) => `tr-deadbeef${hex(n, 16)}`],
    ['the last eight', (n: number) => `tr-${hex(n, 16)}deadbeef`],
  ] as const) {
    const ids: string[] = []
    const table = new IdTable(ids)
    const started = performance.now()
    for (let n = 0; n < 50_000; n++) {
      ids.push(make(n))
      table.add(n)
    }
    let found = 0
    for (let n = 0; n < ids.length; n++) if (table.find(`trace/${ids[n]}`, 6) === n) found++
    const ms = performance.now() - started
    t.equal(found, ids.length, `${name}: every id at its own place`)
    // (one probe run for all of them: ~1.25 billion comparisons, a minute and more here)
    t.ok(ms < 5000, `${name}: ${ms.toFixed(0)} ms`)
  }
})
