/** Where a piece lies: `buf[from, to)`. */
export type TakePiece = (buf: Buffer, from: number, to: number) => void

/** Where a piece too large to hold lay: its first bytes (up to PIECE_HEAD) and its size. */
export type TakeTooLarge = (head: Buffer, size: number) => void

/** the largest piece held by default: no entry git prints for a lane exp wrote comes near it */
export const PIECE_MAX = 16 * 1024 * 1024
/** how much of a piece too large to hold is kept for naming it (a commit id, a header) */
export const PIECE_HEAD = 4096

/**
 * A stream of git output split on one separator byte (NUL, \x01), each piece handed over whole
 * even when a pipe read cut it in two. Pieces are parsed from the bytes where they arrive;
 * only a piece cut by reads is copied (its parts joined once, when it ends), so the strings a
 * parser keeps are their own, not slices that would hold a whole read of output. A piece
 * larger than `max` (a hostile commit message of hundreds of MB, say) is not held: its bytes
 * are passed over as they stream by, and `tooLarge` gets its head and size instead.
 */
export class ByteSplitter {
  private parts: Buffer[] = []
  /** bytes of the piece so far (in `parts`, or passed over once it was too large) */
  private size = 0
  private over = false

  constructor(
    private readonly separator: number,
    private readonly max = PIECE_MAX,
    private readonly tooLarge: TakeTooLarge = () => undefined,
  ) {}

  /** The pieces that `data` ends; what follows its last separator waits for the next read. */
  feed(data: Buffer, take: TakePiece): void {
    let start = 0
    let at = data.indexOf(this.separator)
    if (this.size) {
      if (at < 0) {
        this.add(data, 0, data.length)
        return
      }
      // the piece's last part is joined straight from this read (not copied on its own first)
      if (!this.over && this.size + at <= this.max) {
        const piece = Buffer.concat([...this.parts, data.subarray(0, at)], this.size + at)
        this.parts = []
        this.size = 0
        take(piece, 0, piece.length)
      } else {
        this.add(data, 0, at)
        this.flush(take)
      }
      start = at + 1
      at = data.indexOf(this.separator, start)
    }
    while (at >= 0) {
      if (at - start > this.max) this.tooLarge(Buffer.from(data.subarray(start, start + PIECE_HEAD)), at - start)
      else take(data, start, at)
      start = at + 1
      at = data.indexOf(this.separator, start)
    }
    if (start < data.length) this.add(data, start, data.length)
  }

  /** The last piece, when the output did not end with a separator. */
  end(take: TakePiece): void {
    if (this.size) this.flush(take)
  }

  private add(data: Buffer, from: number, to: number): void {
    const n = to - from
    if (!n) return
    if (!this.over && this.size + n > this.max) {
      // from here on only the size is counted: the head names the piece
      const head = Buffer.concat([...this.parts, data.subarray(from, to)], Math.min(this.size + n, PIECE_HEAD))
      this.parts = [Buffer.from(head)]
      this.over = true
    } else if (!this.over) this.parts.push(Buffer.from(data.subarray(from, to)))
    this.size += n
  }

  private flush(take: TakePiece): void {
    const {parts, size, over} = this
    this.parts = []
    this.size = 0
    this.over = false
    if (over) return this.tooLarge(parts[0]!, size)
    const piece = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)
    take(piece, 0, piece.length)
  }
}
