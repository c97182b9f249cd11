import {existsSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {Worker} from 'node:worker_threads'
import {PACKAGE_ROOT} from '../../package-root.js'
import type {Checked} from './check-one.js'

/**
 * The checks of record files (check-one.ts: UTF-8, JSON, schema, canonical form, digest, id,
 * trailers) run on a second thread, for a full read of a large lane.
 *
 * Why: they are most of the CPU of a cold read (100,000 records: ~1.6 s of ~4 s, JSON.parse
 * and the schema alone ~1.1 s), and every one of them is a pure function of a record's
 * bytes. On the main thread they ran one after another with everything else (reading
 * cat-file's answers, writing the cache); on a worker they run beside it. The worker is
 * handed the bytes without a copy (the slabs they sit in are SharedArrayBuffers: lane-check.ts,
 * Slabs) and answers with what the entry needs (Checked), so what the ledger returns is
 * checked exactly as before — only where the checks run changed.
 *
 * Not used when there is one CPU (the thread would only take turns with this one) or when
 * the worker's module is not there (the read checks in process then).
 */
export class CheckPool {
  /** how many pools this process opened (tests and diagnostics: which path a read took) */
  static opened = 0

  private readonly waiting = new Map<number, {resolve: (r: Checked[]) => void; reject: (e: Error) => void}>()
  private seq = 0
  private failed: Error | undefined

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: {seq: number; results: Checked[]}) => {
      const w = this.waiting.get(m.seq)
      this.waiting.delete(m.seq)
      if (!this.waiting.size) worker.unref()
      w?.resolve(m.results)
    })
    const fail = (e: Error) => {
      this.failed ??= e
      for (const w of this.waiting.values()) w.reject(e)
      this.waiting.clear()
    }
    worker.on('error', fail)
    worker.on('exit', code => fail(new Error(`the record check thread exited (${code})`)))
    // (it keeps the process alive only while a check is asked of it: a read that throws still ends)
    worker.unref()
  }

  /** A pool of one worker, or undefined when the checks are better run in this thread. */
  static open(): CheckPool | undefined {
    if (process.env.EXP_CHECK_THREAD === '0' || os.availableParallelism() < 2 || !existsSync(WORKER)) return undefined
    try {
      const pool = new CheckPool(new Worker(WORKER))
      CheckPool.opened++
      return pool
    } catch {
      return undefined
    }
  }

  /**
   * Check `bytes[k]` as the record `ids[k]` of `lane` at `lamports[k]`, in order. Bytes in a
   * SharedArrayBuffer are passed as a place in it; others are copied.
   */
  check(lane: string, ids: readonly string[], lamports: readonly number[], bytes: readonly Buffer[]): Promise<Checked[]> {
    if (this.failed) return Promise.reject(this.failed)
    const seq = this.seq++
    const shared: SharedArrayBuffer[] = []
    const at = new Map<SharedArrayBuffer, number>()
    const places = new Float64Array(bytes.length * 3)
    const copies: (Uint8Array | undefined)[] = []
    for (let k = 0; k < bytes.length; k++) {
      const b = bytes[k]!
      if (b.buffer instanceof SharedArrayBuffer) {
        let i = at.get(b.buffer)
        if (i === undefined) at.set(b.buffer, (i = shared.push(b.buffer) - 1))
        places[k * 3] = i
        places[k * 3 + 1] = b.byteOffset
        places[k * 3 + 2] = b.length
        copies.push(undefined)
      } else {
        places[k * 3] = -1
        copies.push(b)
      }
    }
    return new Promise((resolve, reject) => {
      if (!this.waiting.size) this.worker.ref()
      this.waiting.set(seq, {resolve, reject})
      this.worker.postMessage({seq, lane, ids, lamports, shared, places, copies})
    })
  }

  async close(): Promise<void> {
    this.failed ??= new Error('the record check thread was closed')
    await this.worker.terminate()
  }
}

/** the worker's module, as tsc writes it (the bundled commands do not carry it: scripts/bundle-commands.mjs) */
const WORKER = path.join(PACKAGE_ROOT, 'dist', 'store', 'git', 'check-worker.js')
