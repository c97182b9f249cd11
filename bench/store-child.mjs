// One measured step of the store benchmark, in its own process (so peak RSS is its own).
// Prints one JSON line.
import {GitRecordStore} from '../dist/store/index.js'
import {prepare, seal, encodeRecord, recordPath} from '../dist/records/index.js'
import {recordMessage} from '../dist/store/git/message.js'
import {draft} from './records.mjs'

const [cmd, repo, ...rest] = process.argv.slice(2)
const out = o => console.log(JSON.stringify({...o, rssMB: process.resourceUsage().maxRSS / 1024}))

if (cmd === 'append') {
  const [lane, n, chunk, offset] = rest.map((x, i) => (i === 0 ? x : Number(x)))
  const s = await GitRecordStore.open(repo)
  const t0 = performance.now()
  for (let i = 0; i < n; i += chunk) {
    const drafts = []
    for (let j = i; j < Math.min(n, i + chunk); j++) drafts.push(draft(offset + j))
    await s.appendBatch(drafts, {lane, now: () => new Date(Date.UTC(2026, 0, 1))})
  }
  const ms = performance.now() - t0
  await s.close()
  out({ms, n})
} else if (cmd === 'fastimport-stream') {
  // the same commits as `append` would make, as a git fast-import stream (generation not timed)
  const [lane, n, offset] = [rest[0], Number(rest[1]), Number(rest[2])]
  const chunks = []
  let mark = 0
  for (let i = 0; i < n; i++) {
    const rec = seal(prepare(draft(offset + i)), {lane, lamport: i + 1, createdAt: '2026-01-01T00:00:00.000Z'})
    const data = encodeRecord(rec)
    const msg = Buffer.from(recordMessage(rec))
    chunks.push(Buffer.from(`blob\nmark :${++mark}\ndata ${data.length}\n`), data, Buffer.from(`\ncommit refs/research/lanes/${lane}\ncommitter bench <bench@exp.invalid> 1767225600 +0000\ndata ${msg.length}\n`), msg, Buffer.from(`\nM 100644 :${mark} ${recordPath(rec.kind, rec.id)}\n\n`))
  }
  process.stdout.write(Buffer.concat(chunks))
} else if (cmd === 'ledger') {
  const s = await GitRecordStore.open(repo)
  if (rest.includes('--drop-cache')) s.dropCache()
  const t0 = performance.now()
  const l = await s.ledger()
  const ms = performance.now() - t0
  await s.close()
  out({ms, size: l.size, problems: l.problems.length})
} else if (cmd === 'warm') {
  const s = await GitRecordStore.open(repo)
  await s.ledger() // make sure the cache is valid
  const times = []
  let hits = 0
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now()
    const l = await s.ledger()
    hits = l.records({kinds: ['decision']}).length
    times.push(performance.now() - t0)
  }
  await s.close()
  out({ms: times.sort((a, b) => a - b)[2], hits})
} else if (cmd === 'incremental') {
  const s = await GitRecordStore.open(repo)
  await s.ledger()
  const times = []
  for (let k = 0; k < 3; k++) {
    await s.append({kind: 'note', body: {text: `incremental ${Date.now()} ${k}`}}, {lane: 'incremental'})
    const t0 = performance.now()
    const l = await s.ledger()
    l.records({kinds: ['decision']})
    times.push(performance.now() - t0)
  }
  await s.close()
  out({ms: times.sort((a, b) => a - b)[1]})
}
