import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {PassThrough, Writable} from 'node:stream'
import {writeJsonRecords} from '../../src/cli/json-stream.js'
import type {LedgerEntry} from '../../src/store/index.js'

// The streamed `--json` of `exp ledger`: records written from their stored bytes, a batch
// (1,000) at a time through one buffer that is reused for the next batch.

/** n records as stored (canonical JSON and a newline), of lengths that vary, some with multi-byte text */
function records(n: number): Buffer[] {
  return Array.from({length: n}, (_, i) => Buffer.from(`${JSON.stringify({i, text: 'é→'.repeat(i % 37) + 'x'.repeat((i * 7919) % 301)})}\n`))
}

/** entries that stand for the records by place (the writer only hands them back to the loader) */
function write(out: Writable & {fd?: number}, bytes: Buffer[]): Promise<void> {
  const entries = bytes.map((_, i) => ({id: String(i)}) as unknown as LedgerEntry)
  return writeJsonRecords(out, entries, es => es.map(e => bytes[Number(e.id)]!))
}

const expected = (bytes: Buffer[]) => (bytes.length ? `[\n${bytes.map(b => b.toString('utf8', 0, b.length - 1)).join(',\n')}\n]\n` : '[]\n')

for (const n of [0, 1, 999, 1000, 1001, 2500]) {
  t.test(`${n} records to a file descriptor (writev) read back as the JSON array of them`, async t => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-json-stream-'))
    t.teardown(() => fs.rmSync(dir, {recursive: true, force: true}))
    const file = path.join(dir, 'out.json')
    const fd = fs.openSync(file, 'w')
    const out = Object.assign(new Writable({write: (_c, _e, cb) => cb(new Error('the descriptor path writes around the stream'))}), {fd})
    const bytes = records(n)
    await write(out, bytes)
    fs.closeSync(fd)
    const text = fs.readFileSync(file, 'utf8')
    t.equal(text, expected(bytes), 'byte for byte: one record a line, `,` between them, none after the last')
    t.same(JSON.parse(text), bytes.map(b => JSON.parse(b.toString('utf8'))), 'one JSON value')
  })
}

t.test('a stream with no descriptor and a slow reader gets every batch intact (the reused buffer is not handed to it)', async t => {
  const out = new PassThrough({highWaterMark: 64})
  const chunks: Buffer[] = []
  // read only after a turn of the event loop (the writer waits for 'drain' with its batches
  // queued), and kept as handed over, as a socket keeps them until they are sent
  out.on('data', (c: Buffer) => {
    out.pause()
    chunks.push(c)
    setImmediate(() => out.resume())
  })
  const bytes = records(3500)
  await write(out, bytes)
  out.end()
  await new Promise(resolve => out.on('end', resolve))
  t.equal(Buffer.concat(chunks).toString('utf8'), expected(bytes))
})
