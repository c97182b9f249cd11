import fs from 'node:fs'
import {createHash} from 'node:crypto'

/**
 * git's pack index, version 2 (gitformat-pack(5)), written and read in one place: the writer
 * of batch packs (writer.ts) makes one; the in-process pack reader (pack-read.ts) looks ids up
 * in git's. Layout: the magic `\377tOc` and version 2; a fan-out of 256 counts (ids whose
 * first byte is at most b); the sorted 20-byte ids; a CRC32 each; a 32-bit offset each, whose
 * top bit set makes the rest an index into the 64-bit offsets that follow; the pack's
 * checksum; the index's own SHA-1.
 */
const MAGIC = 0xff744f63
const VERSION = 2
const FANOUT_AT = 8
const NAMES_AT = FANOUT_AT + 256 * 4
const LARGE = 0x80000000

export interface PackIndexEntry {
  oid: string
  crc: number
  offset: number
}

/** The .idx of a pack holding `entries` (in any order), whose trailing checksum is `packSum`. */
export function writePackIndex(entries: readonly PackIndexEntry[], packSum: Buffer): Buffer {
  const order = [...entries].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0))
  const n = order.length
  const head = Buffer.alloc(NAMES_AT)
  head.writeUInt32BE(MAGIC, 0)
  head.writeUInt32BE(VERSION, 4)
  const counts = new Array<number>(256).fill(0)
  for (const {oid} of order) counts[parseInt(oid.slice(0, 2), 16)]!++
  let acc = 0
  for (let b = 0; b < 256; b++) {
    acc += counts[b]!
    head.writeUInt32BE(acc, FANOUT_AT + b * 4)
  }
  const names = Buffer.alloc(n * 20)
  const crc = Buffer.alloc(n * 4)
  const off = Buffer.alloc(n * 4)
  const large: Buffer[] = []
  order.forEach((e, k) => {
    names.write(e.oid, k * 20, 'hex')
    crc.writeUInt32BE(e.crc >>> 0, k * 4)
    if (e.offset < LARGE) off.writeUInt32BE(e.offset, k * 4)
    else {
      off.writeUInt32BE((LARGE | large.length) >>> 0, k * 4)
      const b = Buffer.alloc(8)
      b.writeBigUInt64BE(BigInt(e.offset))
      large.push(b)
    }
  })
  const body = Buffer.concat([head, names, crc, off, ...large, packSum])
  return Buffer.concat([body, createHash('sha1').update(body).digest()])
}

/**
 * The offset of object `id` (20 bytes) in the pack of the index `file`, read with a binary
 * search of its ids (a few reads, not the whole file); undefined when the index does not list
 * it or is not of version 2. Throws when the file cannot be read.
 */
export function findInPackIndex(file: string, id: Buffer): number | undefined {
  const fd = fs.openSync(file, 'r')
  try {
    const head = Buffer.alloc(NAMES_AT)
    if (fs.readSync(fd, head, 0, head.length, 0) !== head.length || head.readUInt32BE(0) !== MAGIC || head.readUInt32BE(4) !== VERSION) return undefined
    const count = head.readUInt32BE(FANOUT_AT + 255 * 4)
    let lo = id[0] ? head.readUInt32BE(FANOUT_AT + (id[0] - 1) * 4) : 0
    let hi = head.readUInt32BE(FANOUT_AT + id[0]! * 4)
    const name = Buffer.alloc(20)
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (fs.readSync(fd, name, 0, 20, NAMES_AT + mid * 20) !== 20) return undefined
      const c = name.compare(id)
      if (c === 0) {
        // the 32-bit offsets follow the names and their CRCs
        const small = Buffer.alloc(8)
        if (fs.readSync(fd, small, 0, 4, NAMES_AT + count * 24 + mid * 4) !== 4) return undefined
        const off = small.readUInt32BE(0)
        if (!(off & LARGE)) return off
        if (fs.readSync(fd, small, 0, 8, NAMES_AT + count * 28 + (off & 0x7fffffff) * 8) !== 8) return undefined
        const big = Number(small.readBigUInt64BE(0))
        return Number.isSafeInteger(big) ? big : undefined
      }
      if (c < 0) lo = mid + 1
      else hi = mid
    }
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}
