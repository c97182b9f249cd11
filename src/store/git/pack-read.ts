import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import {hashObject, type ObjectType} from './objects.js'
import {findInPackIndex} from './pack-index.js'

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
      const offset = findInPackIndex(path.join(dir, name), id)
      if (offset === undefined) continue
      return readAt(path.join(dir, `${name.slice(0, -4)}.pack`), offset, oid, most)
    } catch {
      return undefined
    }
  }
  return undefined
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
