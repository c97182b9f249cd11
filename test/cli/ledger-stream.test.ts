import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {exp} from '../helpers/cli.js'

/**
 * A streamed `exp ledger --json` of several batches (1,000 records each) read through one
 * reused buffer (cache.ts, transient reads): cold (no cache) and warm (every byte from the
 * cache, checked in place) it writes every record once, byte for byte as stored, in ledger
 * order; and an edit of a cached record seen in a later batch still reads from history.
 */
t.test('exp ledger --json over 3,400 records in 4 kinds and 2 lanes, cold and warm: every record as stored, in ledger order', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo, {onWarning: () => undefined})
  const kinds = ['note', 'trace', 'verification', 'decision'] as const
  for (const lane of ['a', 'b']) {
    const drafts = Array.from({length: 1700}, (_, i) => sampleDraft(kinds[i % 4]!, i + (lane === 'a' ? 0 : 100_000)))
    await s.appendBatch(drafts, {lane})
  }
  const ledger = await s.ledger()
  const expected = ledger.entries.map(e => ledger.recordBytes([e])[0]!.toString('utf8').trimEnd())
  await s.close()
  t.equal(expected.length, 3400)
  const cacheDir = path.join(repo, '.git/exp')
  fs.rmSync(cacheDir, {recursive: true, force: true})
  for (const when of ['cold', 'warm', 'warm again']) {
    const r = await exp(['ledger', '--json'], {cwd: repo})
    t.equal(r.code, 0, `${when}: exit 0 (${r.stderr.slice(0, 200)})`)
    t.equal(r.stderr, '', `${when}: nothing on stderr`)
    const lines = r.stdout.split('\n')
    t.equal(lines[0], '[')
    const body = lines.slice(1, -2).map((l, i, all) => (i < all.length - 1 ? l.replace(/,$/, '') : l))
    t.equal(body.length, 3400, `${when}: one line per record`)
    const wrong = body.findIndex((l, i) => l !== expected[i])
    t.equal(wrong, -1, `${when}: every line is its record's bytes, in ledger order${wrong >= 0 ? ` (line ${wrong} differs)` : ''}`)
    t.same(JSON.parse(r.stdout).length, 3400, `${when}: valid JSON`)
  }
  // a record of a late batch edited in its data file: read from history, with a warning
  const dat = fs.readdirSync(path.join(cacheDir, 'cache-v4')).find(f => f.includes('lanes~b') && f.endsWith('.note.dat'))!
  const file = path.join(cacheDir, 'cache-v4', dat)
  const bytes = fs.readFileSync(file)
  const at = bytes.lastIndexOf('"body":{') + 8
  bytes[at + 1] ^= 0x01
  fs.writeFileSync(file, bytes)
  const r = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(r.code, 0)
  t.match(r.stderr, /cache of refs\/research\/lanes\/b does not match/)
  const body = r.stdout.split('\n').slice(1, -2).map(l => l.replace(/,$/, ''))
  t.equal(body.findIndex((l, i) => l !== expected[i]), -1, 'the edited record comes from history: every line as stored')
})
