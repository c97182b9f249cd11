/** Where a piece lies: `buf[from, to)`. */
export type TakePiece = (buf: Buffer, from: number, to: number) => void

/**
 * A stream of git output split on one separator byte (NUL, \x01), each piece handed over whole
 * even when a pipe read cut it in two. Pieces are parsed from the bytes where they arrive;
 * only a piece cut by a read is copied (and joined with the next read), so the strings a
 * parser keeps are its own, not slices that would hold a whole read of output.
 */
export class ByteSplitter {
  private rest: Buffer | undefined

  constructor(private readonly separator: number) {}

  /** The pieces that `data` ends; what follows its last separator waits for the next read. */
  feed(data: Buffer, take: TakePiece): void {
    let start = 0
    let at = data.indexOf(this.separator)
    if (this.rest) {
      if (at < 0) {
        this.rest = Buffer.concat([this.rest, data])
        return
      }
      const head = Buffer.concat([this.rest, data.subarray(0, at)])
      this.rest = undefined
      take(head, 0, head.length)
      start = at + 1
      at = data.indexOf(this.separator, start)
    }
    while (at >= 0) {
      take(data, start, at)
      start = at + 1
      at = data.indexOf(this.separator, start)
    }
    if (start < data.length) this.rest = Buffer.from(data.subarray(start))
  }

  /** The last piece, when the output did not end with a separator. */
  end(take: TakePiece): void {
    const r = this.rest
    this.rest = undefined
    if (r) take(r, 0, r.length)
  }
}
