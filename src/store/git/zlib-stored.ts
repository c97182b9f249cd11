/**
 * A zlib stream with "stored" (uncompressed) deflate blocks: valid for git, produced in a
 * single copy instead of one zlib handle per object. `zlib.deflateSync` costs ~100 µs per
 * call whatever the size (most of a small record append); trees, deltas and commits are
 * small and `git gc` recompresses everything anyway.
 */
export function zlibStored(data: Buffer): Buffer {
  const blocks = Math.max(1, Math.ceil(data.length / 65535))
  const out = Buffer.allocUnsafe(2 + blocks * 5 + data.length + 4)
  out[0] = 0x78
  out[1] = 0x01
  let o = 2
  for (let b = 0; b < blocks; b++) {
    const start = b * 65535
    const len = Math.min(65535, data.length - start)
    out[o] = b === blocks - 1 ? 1 : 0
    out.writeUInt16LE(len, o + 1)
    out.writeUInt16LE(~len & 0xffff, o + 3)
    data.copy(out, o + 5, start, start + len)
    o += 5 + len
  }
  out.writeUInt32BE(adler32(data), o)
  return out
}

function adler32(data: Buffer): number {
  let a = 1
  let b = 0
  const n = data.length
  let i = 0
  while (i < n) {
    const end = Math.min(n, i + 5552)
    for (; i < end; i++) {
      a += data[i]!
      b += a
    }
    a %= 65521
    b %= 65521
  }
  return ((b << 16) | a) >>> 0
}
