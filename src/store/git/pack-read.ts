import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import {hashObject, type ObjectType} from './objects.js'

/** git's pack object types stored whole (a delta, 6 or 7, is not read here) */
const WHOLE: Record<number, ObjectType> = {1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag'}
/** the bytes first read at an object's offset in its pack (a commit or a tree of a lane: a few KB) */
const FIRST_READ = 16 * 1024
/** the most read at an offset before the object is left to cat-file */
const MOST_READ = 1024 * 1024

/**
 * One object read from a pack of this repository in process, when the pack holds it whole (not
 * as a delta) and it is no larger than `most`: found in a pack index (version 2) by its id,
 * inflated, and checked against its id. What a command that reads one packed object (the tip of
 * each lane, before a warm read answers from the cache) otherwise started `git cat-file` for:
 * ~45 ms of a warm `exp ledger --json` of 100,000 records after `exp gc`, half of it the fork of
 * the node process. Undefined for anything else (not in a pack here, a delta, larger, damaged,
 * an index of another version, a repository of SHA-256 ids): the caller asks cat-file, which
 * reads every kind of object and names what is wrong.
 */
export function readPacked(gitdir: string, oid: string, most = MOST_READ): {type: ObjectType; data: Buffer} | undefined {
  if (!/^[0-9a-f]{40}$/.test(oid)) return undefined
  const dir = path.join(gitdir, 'objects', 'pack')
  let names: string[]
  try {
    names = fs.readdirSync(dir).filter(n => n.endsWith('.idx'))
  } catch {
    return undefined
  }
  const id = Buffer.from(oid, 'hex')
  for (const name of names) {
    try {
      const offset = findInIndex(path.join(dir, name), id)
      if (offset === undefined) continue
      return readAt(path.join(dir, `${name.slice(0, -4)}.pack`), offset, oid, most)
    } catch {
      return undefined
    }
  }
  return undefined
}

/** The offset of object `id` in the pack of index `file` (version 2), or undefined when it does not list it. */
function findInIndex(file: string, id: Buffer): number | undefined {
  const fd = fs.openSync(file, 'r')
  try {
    const head = Buffer.alloc(8 + 256 * 4)
    if (fs.readSync(fd, head, 0, head.length, 0) !== head.length || head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) return undefined
    const count = head.readUInt32BE(8 + 255 * 4)
    let lo = id[0] ? head.readUInt32BE(8 + (id[0] - 1) * 4) : 0
    let hi = head.readUInt32BE(8 + id[0]! * 4)
    const names = 8 + 256 * 4
    const name = Buffer.alloc(20)
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (fs.readSync(fd, name, 0, 20, names + mid * 20) !== 20) return undefined
      const c = name.compare(id)
      if (c === 0) {
        // the 32-bit offsets follow the names and their CRCs; one with its top bit set indexes the 64-bit ones after them
        const small = Buffer.alloc(8)
        if (fs.readSync(fd, small, 0, 4, names + count * 24 + mid * 4) !== 4) return undefined
        const off = small.readUInt32BE(0)
        if (!(off & 0x80000000)) return off
        if (fs.readSync(fd, small, 0, 8, names + count * 28 + (off & 0x7fffffff) * 8) !== 8) return undefined
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

/** The object at `offset` of `pack` when it is stored whole and no larger than `most`; checked against `oid`. */
function readAt(pack: string, offset: number, oid: string, most: number): {type: ObjectType; data: Buffer} | undefined {
  const fd = fs.openSync(pack, 'r')
  try {
    for (let want = FIRST_READ; want <= MOST_READ * 2; want *= 4) {
      const buf = Buffer.alloc(want)
      const got = fs.readSync(fd, buf, 0, want, offset)
      // the entry's header: its type, and its size in 4 + 7n bits
      let c = buf[0]!
      const type = WHOLE[(c >> 4) & 7]
      if (!type || got === 0) return undefined
      let size = c & 15
      let mul = 16
      let p = 1
      while (c & 0x80) {
        if (p >= got || mul > 2 ** 35) return undefined
        c = buf[p++]!
        size += (c & 0x7f) * mul
        mul *= 128
      }
      if (size > most) return undefined
      let data: Buffer
      try {
        data = zlib.inflateSync(buf.subarray(p, got), {maxOutputLength: Math.max(size, 1)})
      } catch {
        // (its deflated bytes go on past what was read: read more, unless the pack ended)
        if (got < want) return undefined
        continue
      }
      return data.length === size && hashObject(type, data) === oid ? {type, data} : undefined
    }
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}
