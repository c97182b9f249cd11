import {parentPort} from 'node:worker_threads'
import {encodeRecord, kindOfId, prepare, seal} from '../../records/index.js'
import {checkOne, type Checked} from './check-one.js'

/** The thread of a CheckPool (check-pool.ts): checks the record files it is handed, in order. */
interface Request {
  seq: number
  lane: string
  ids: string[]
  lamports: number[]
  shared: SharedArrayBuffer[]
  places: Float64Array
  copies: (Uint8Array | undefined)[]
}

/** a request has come: warming stops (the records it brings warm the rest) */
let asked = false

parentPort?.on('message', (m: Request) => {
  asked = true
  const results: Checked[] = []
  for (let k = 0; k < m.ids.length; k++) {
    const id = m.ids[k]!
    const s = m.places[k * 3]!
    const copy = m.copies[k]
    const bytes = s < 0 ? Buffer.from(copy!.buffer, copy!.byteOffset, copy!.length) : Buffer.from(m.shared[s]!, m.places[k * 3 + 1], m.places[k * 3 + 2])
    results.push(checkOne(bytes, {lane: m.lane, kind: kindOfId(id) ?? '', id, lamport: m.lamports[k]}))
  }
  parentPort!.postMessage({seq: m.seq, results})
})

/** records checked to warm the thread, at most */
const WARM = 600

/**
 * Run the checks on a record of exp's own making while the reader still lists the lane's
 * tree (the thread starts ~150 ms before its first records come): V8 optimizes the code the
 * checks go through once it has run a few hundred times, and a cold thread took ~50 ms over
 * its first 256 records instead of ~5. In slices, stopped by the first request. Nothing it
 * does is kept but the compiled code.
 */
function warm(): void {
  const rec = seal(prepare({kind: 'note', body: {text: 'warm', about: []}, cites: []}), {lane: 'warm', lamport: 1, createdAt: '2026-01-01T00:00:00.000Z'})
  const bytes = encodeRecord(rec)
  let done = 0
  const slice = () => {
    if (asked) return
    for (let i = 0; i < 50; i++) checkOne(bytes, {lane: 'warm', kind: 'note', id: rec.id, lamport: 1})
    if ((done += 50) < WARM) setImmediate(slice)
  }
  setImmediate(slice)
}

if (parentPort) {
  try {
    warm()
  } catch {
    // (warming is only a head start)
  }
}
