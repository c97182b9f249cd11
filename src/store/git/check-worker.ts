import {parentPort} from 'node:worker_threads'
import {kindOfId} from '../../records/index.js'
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

parentPort?.on('message', (m: Request) => {
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
