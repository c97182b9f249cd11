/** Reading a branch's history as plain data: commit trailers and blamed lines (no I/O here). */

/** The trailers of a commit message: `Key: value` lines of its last paragraph, by key, in order. */
export function trailersOf(message: string): Record<string, string[]> {
  const paragraphs = message.trim().split(/\n\s*\n/)
  const last = paragraphs.length > 1 ? paragraphs[paragraphs.length - 1]! : ''
  const out: Record<string, string[]> = {}
  for (const line of last.split('\n')) {
    const m = /^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$/.exec(line.trim())
    if (m) (out[m[1]!] ??= []).push(m[2]!.trim())
  }
  return out
}

/** One line of `git blame --porcelain`. */
export interface BlamedLine {
  /** 1-based line number in the blamed revision */
  line: number
  text: string
  /** the commit that last changed the line */
  commit: string
  /** the line's number in that commit */
  original_line: number
  /**
   * the commit of the blamed revision's first-parent line that brought the line there (`git
   * blame --first-parent`): \`commit\` itself when it is on that line, else the merge that
   * brought it in. Who a line came from is read from this commit, which the branch's own
   * history vouches for, never from a message on a merged branch (anyone can write one).
   */
  via: string
}
