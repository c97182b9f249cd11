/**
 * A minimal git delta encoder for the one change a lane makes to a tree: entries inserted
 * somewhere in the middle. Emits copy(common prefix) + insert(middle) + copy(common suffix).
 * The format is git's (pack-format.txt, "Deltified representation").
 */
function varint(n: number, out: number[]): void {
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80)
    n >>>= 7
  }
  out.push(n)
}

function copy(offset: number, size: number, out: number[]): void {
  while (size > 0) {
    const len = Math.min(size, 0xffffff)
    let cmd = 0x80
    const bytes: number[] = []
    for (let i = 0; i < 4; i++) {
      const b = (offset >>> (8 * i)) & 0xff
      if (b) {
        cmd |= 1 << i
        bytes.push(b)
      }
    }
    for (let i = 0; i < 3; i++) {
      const b = (len >>> (8 * i)) & 0xff
      if (b) {
        cmd |= 0x10 << i
        bytes.push(b)
      }
    }
    out.push(cmd, ...bytes)
    offset += len
    size -= len
  }
}

export function makeDelta(base: Buffer, target: Buffer): Buffer {
  const max = Math.min(base.length, target.length)
  let p = 0
  while (p < max && base[p] === target[p]) p++
  let s = 0
  while (s < max - p && base[base.length - 1 - s] === target[target.length - 1 - s]) s++
  const out: number[] = []
  varint(base.length, out)
  varint(target.length, out)
  if (p) copy(0, p, out)
  const head = Buffer.from(out)
  const inserts: Buffer[] = []
  for (let i = p; i < target.length - s; i += 127) {
    const chunk = target.subarray(i, Math.min(i + 127, target.length - s))
    inserts.push(Buffer.from([chunk.length]), chunk)
  }
  const tail: number[] = []
  if (s) copy(base.length - s, s, tail)
  return Buffer.concat([head, ...inserts, Buffer.from(tail)])
}
